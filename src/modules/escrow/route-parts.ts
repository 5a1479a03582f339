// What the escrow, collection payment and direct deposit routes declare alike: the error cases of
// a coin whose rate is unavailable or that settlement halted, and the answer of an operation run
// once per Idempotency-Key.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { idempotent } from '../../http/idempotency.ts'
import { ok } from '../../http/schemas.ts'

/** 503 of an operation that quotes a price: the coin's USD rate cannot be had. */
export const RATE_UNAVAILABLE = {
  when: 'the USD rate of the coin cannot be had right now',
  message: 'The USD rate of this coin is unavailable right now; try again shortly',
}

/** 503 COIN_HALTED of an operation that moves a coin settlement halted. */
export const HALTED = {
  when: 'the coin is halted by settlement (a ledger/chain mismatch or a deep chain reorganisation) until an operator resumes it; `data.coin` names it',
  message: 'Payments in AVAX are paused while the platform checks its balances; try again later',
  data: { coin: 'avax' },
}

/** Runs `run` for the signed-in caller once per Idempotency-Key; answers 200 with its data and `message`. */
export function okOnce<T>(
  db: Db,
  req: FastifyRequest,
  reply: FastifyReply,
  message: string,
  run: (userId: string) => Promise<T>,
) {
  const userId = caller(req).userId
  return idempotent(db, req, reply, userId, async () => ({
    statusCode: 200,
    body: ok(await run(userId), message),
  }))
}
