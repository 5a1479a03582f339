// What an outgoing transfer from a custodial address may be funded by: one pending hold of its
// coin, without a timeout (the hold would void itself while the chain can still mine the
// transaction), reserving exactly its amount, what a success posts (the reconciliation checks
// every open transfer against that). Anything else is refused before a transfer is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser } from '../withdrawals/helpers.ts'

let t: TestApp
let user: TestUser

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  await fundUser(t, 12, user, 'avax', 1n * AVAX)
})
afterAll(() => t?.close())

const db = () => t.database.db
const transfers = async () =>
  Number(
    (
      await db()
        .selectFrom('outgoingTransfers')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

/** Holds `amount` of the user's AVAX (with a timeout if given) and enqueues `send` from it. */
async function enqueueFrom(label: string, held: bigint, send: bigint, expiresAt?: Date) {
  return db()
    .transaction()
    .execute(async (tx) => {
      const account = (await t.app.services.ledger.accountsOf(tx, 'user', user.id)).avax!
      const hold = await t.app.services.ledger.hold(tx, {
        key: `${label}:hold`,
        coin: 'avax',
        account: account.id,
        amount: held,
        ...(expiresAt ? { expiresAt } : {}),
      })
      return t.app.services.outgoing.enqueue(tx, {
        purpose: 'withdrawal',
        referenceId: label,
        key: `${label}:transfer`,
        from: { kind: 'user', ownerId: user.id },
        coin: 'avax',
        to: freshAddress(),
        amount: send,
        fundingHoldId: hold.id,
      })
    })
}

describe('the funding hold of an outgoing transfer', () => {
  it('may not carry a timeout', async () => {
    const before = await transfers()
    const expiresAt = new Date(t.clock.now().getTime() + 60_000)
    await expect(enqueueFrom('timed', AVAX / 10n, AVAX / 10n, expiresAt)).rejects.toThrow(/has a timeout/)
    expect(await transfers()).toBe(before)
  })

  it('must reserve exactly its amount, not less and not more', async () => {
    const before = await transfers()
    await expect(enqueueFrom('short', AVAX / 10n, AVAX / 5n)).rejects.toThrow(/reserves/)
    await expect(enqueueFrom('over', AVAX / 5n, AVAX / 10n)).rejects.toThrow(/reserves/)
    expect(await transfers()).toBe(before)
    // Neither hold was kept: the refusal rolled back the caller's transaction.
    const held = (await t.app.services.ledger.accountsOf(db(), 'user', user.id)).avax!
    expect(held.held).toBe(0n)
    const ok = await enqueueFrom('exact', AVAX / 10n, AVAX / 10n)
    expect(ok.replayed).toBe(false)
    expect(await transfers()).toBe(before + 1)
  })
})
