// A transfer queued by the caller's own statement (`OutgoingSender.enqueueWrites`): the same checks
// as `enqueue` before anything is built, the transfer and its first run's job written only by the
// statement that carries them (sent and settled like any other), and a key already taken failing
// that statement and the caller's transaction whole.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withWrites } from '../../src/db/compose.ts'
import type { Executor, Tx } from '../../src/db/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll } from '../withdrawals/helpers.ts'

let t: TestApp
let user: TestUser

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  await fundUser(t, 13, user, 'avax', 1n * AVAX)
})
afterAll(() => t?.close())

const db = () => t.database.db

/**
 * Holds `amount` of the user's AVAX (with a timeout if given) and builds the writes of a transfer
 * from it (under the key `<key>:transfer`, `<label>:transfer` unless given).
 */
async function writesFrom(
  tx: Tx,
  label: string,
  amount: bigint,
  opts: { expiresAt?: Date; key?: string } = {},
) {
  const { expiresAt } = opts
  const account = (await t.app.services.ledger.accountsOf(tx, 'user', user.id)).avax!
  const hold = await t.app.services.ledger.hold(tx, {
    key: `${label}:hold`,
    coin: 'avax',
    account: account.id,
    amount,
    ...(expiresAt ? { expiresAt } : {}),
  })
  const to = freshAddress()
  const sent = await t.app.services.outgoing.enqueueWrites(tx, {
    purpose: 'withdrawal',
    referenceId: label,
    key: `${opts.key ?? label}:transfer`,
    from: { kind: 'user', ownerId: user.id },
    coin: 'avax',
    to,
    amount,
    fundingHoldId: hold.id,
  })
  return { ...sent, to, holdId: hold.id }
}

/** The caller's statement, carrying `writes`. */
const carry = (tx: Tx, writes: Parameters<typeof withWrites>[1]) =>
  withWrites(tx, writes).selectNoFrom(sql<number>`1`.as('one')).execute()

const rowsOf = async (ex: Executor, transferId: string) => ({
  transfers: await ex.selectFrom('outgoingTransfers').select('id').where('id', '=', transferId).execute(),
  jobs: await ex
    .selectFrom('jobs')
    .select('id')
    .where('dedupeKey', '=', `outgoing.send:${transferId}:0`)
    .execute(),
})

describe('a transfer written by the caller’s statement', () => {
  it('checks its funding hold as enqueue does', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000)
    await expect(
      db()
        .transaction()
        .execute((tx) => writesFrom(tx, 'timed', AVAX / 10n, { expiresAt })),
    ).rejects.toThrow(/has a timeout/)
  })

  it('is written with its job by that statement, then sent and settled', async () => {
    const sent = await db()
      .transaction()
      .execute(async (tx) => {
        const w = await writesFrom(tx, 'carried', AVAX / 10n)
        // Built but not yet carried: nothing of it exists, even in its own transaction.
        expect(await rowsOf(tx, w.id)).toEqual({ transfers: [], jobs: [] })
        await carry(tx, w.writes)
        expect(await rowsOf(tx, w.id)).toEqual({ transfers: [{ id: w.id }], jobs: [expect.any(Object)] })
        return w
      })
    expect(await rowsOf(db(), sent.id)).toEqual({ transfers: [{ id: sent.id }], jobs: [expect.any(Object)] })
    const row = await t.app.services.outgoing.get(db(), sent.id)
    expect(row).toMatchObject({ status: 'queued' })
    await settleAll(t)
    expect(await t.app.services.outgoing.get(db(), sent.id)).toMatchObject({ status: 'completed' })
    expect(await t.app.services.chain.balanceOf(sent.to, 'avax')).toBe(AVAX / 10n)
  })

  it('fails the statement and the caller’s transaction when its key is taken', async () => {
    await db()
      .transaction()
      .execute(async (tx) => carry(tx, (await writesFrom(tx, 'taken', AVAX / 20n)).writes))
    const heldBefore = (await t.app.services.ledger.accountsOf(db(), 'user', user.id)).avax!.held
    let again: { id: string; holdId: string } | undefined
    await expect(
      db()
        .transaction()
        .execute(async (tx) => {
          // Another hold, the same transfer key.
          const w = await writesFrom(tx, 'taken-again', AVAX / 20n, { key: 'taken' })
          again = { id: w.id, holdId: w.holdId }
          await carry(tx, w.writes)
        }),
    ).rejects.toThrow(/unique|duplicate/)
    expect(again).toBeDefined()
    expect(await rowsOf(db(), again!.id)).toEqual({ transfers: [], jobs: [] })
    expect(await t.app.services.ledger.getHold(db(), again!.holdId)).toBeUndefined()
    expect((await t.app.services.ledger.accountsOf(db(), 'user', user.id)).avax!.held).toBe(heldBefore)
    await settleAll(t)
  })
})
