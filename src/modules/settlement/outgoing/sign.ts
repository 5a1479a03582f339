// Signing. The first transaction of a transfer takes the address's next nonce, is signed, stored
// and registered with the deposit watcher in ONE database transaction, before it is broadcast; a
// replacement reuses that nonce (replace.ts). Private keys are opened only here, never logged.
import type { Executor } from '../../../db/index.ts'
import type { SignedTransfer, TransferRequest } from '../../../platform/chain/types.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { logOf, startIn } from './report.ts'
import {
  type PlatformSigner,
  type Prepared,
  platformSigner,
  type RunState,
  type SenderContext,
} from './types.ts'

/** Signs `req` with the transfer's sending key (a platform signer or a custodial key). */
export async function signFor(
  s: SenderContext,
  ex: Executor,
  row: OutgoingRow,
  req: TransferRequest,
): Promise<SignedTransfer> {
  return (await signerOf(s, ex, row))(req)
}

/** The transfer's sending key, opened (read from `ex` for a custodial address), ready to sign. */
async function signerOf(
  s: SenderContext,
  ex: Executor,
  row: OutgoingRow,
): Promise<(req: TransferRequest) => Promise<SignedTransfer>> {
  const { chain, keys } = s.deps
  if (row.fromKind === 'platform') {
    const signer = platformSigner(chain, row.fromOwnerId as PlatformSigner)
    return (req) => signer.signTransfer(req)
  }
  const key = await keys.privateKey(ex, row.fromAddress)
  return (req) => chain.signTransfer(key, req)
}

/** Thrown inside the signing transaction to roll it back when the transfer was not queued any more. */
class NotQueued extends Error {}

/**
 * Takes the address's next nonce (the stored next nonce, or the chain's `latest` count when that is
 * ahead: nonces used outside the platform after a key export are skipped), signs, stores the signed
 * transaction and registers it with the watcher: one database transaction, the address's nonce row
 * locked first. The transfer as stored; undefined when another run signed or settled it first
 * (nothing is taken or stored then).
 */
export async function signFirst(
  s: SenderContext,
  row: OutgoingRow,
  prepared: Prepared,
  latestOnChain: number,
  run?: RunState,
): Promise<OutgoingRow | undefined> {
  const { db, clock, watcher, log } = s.deps
  // The key is read before the address's turn and its nonce row lock: the sends waiting for that
  // row wait one round trip less for each send before them.
  const sign = await signerOf(s, db, row)
  try {
    const signing = () =>
      db.transaction().execute(async (tx) => {
        const now = clock.now()
        const nonce = await outgoingRepo.takeNonce(tx, s.chainKey, row.fromAddress, latestOnChain, now)
        const signed = await sign({
          coin: row.coin,
          to: row.toAddress,
          amount: BigInt(row.amount),
          nonce,
          gas: prepared.gas,
          fees: prepared.fees,
        })
        const txHash = signed.hash.toLowerCase()
        // Stored only while the transfer is still queued (the compare-and-set of this step).
        const stored = await outgoingRepo.markSigned(
          tx,
          row.id,
          { nonce, raw: signed.raw, txHash, gasLimit: signed.gas, maxFee: signed.maxFee },
          now,
        )
        if (!stored) throw new NotQueued()
        if (run?.start) await startIn(s, tx, row)
        await watcher.registerOwn(tx, {
          txHash,
          from: row.fromAddress,
          purpose: row.purpose,
          ...(row.creditAccountId ? { creditAccountId: row.creditAccountId } : {}),
        })
        log.info(
          { ...logOf(row), nonce, txHash, maxFee: signed.maxFee.toString() },
          'outgoing transfer signed',
        )
        return stored
      })
    const result = await s.turns.run(row.fromAddress.toLowerCase(), signing)
    if (run) run.start = false
    return result
  } catch (err) {
    if (err instanceof NotQueued) return undefined
    throw err
  }
}
