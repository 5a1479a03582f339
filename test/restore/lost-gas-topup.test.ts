// A gas top-up the platform's gas wallet sent in a timeline a restore lost (the copy has no record
// of it) is the platform's gas at the address, booked as a registered top-up is (the address's
// treasury account), never a deposit of the address's owner: read while its coin runs, or parked
// behind an unknown platform transfer of the same address and booked by that transfer's re-attach,
// whose gas it paid. On a real database and the dev chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
} from '../withdrawals/helpers.ts'
import { adminCalls, openHalt, signedInLostTimeline } from './support.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Restore drill: top-up and withdrawal signed after the backup'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  await t?.close()
})

const api = () => adminCalls(t, () => admin.token)
const TOPUP = AVAX / 100n

/** The platform's gas at the address: its treasury account of the native coin. */
const platformGasAt = async (user: TestUser) =>
  t.app.services.ledger.balance(
    t.database.db,
    'treasury',
    (await walletAddress(t, user)).toLowerCase(),
    'avax',
  )

/** Sends a gas top-up from the gas wallet that the database never records. */
async function lostTopUp(user: TestUser) {
  const { chain } = t.app.services
  const sent = await chain.gasWallet.send({ coin: 'avax', to: await walletAddress(t, user), amount: TOPUP })
  expect((await chain.waitForReceipt(sent.hash)).status).toBe('success')
  return sent.hash.toLowerCase()
}

const recordsOf = (txHash: string) =>
  t.database.db.selectFrom('transactions').select(['id', 'ownerId']).where('txHash', '=', txHash).execute()

describe('a gas top-up the database has no record of', () => {
  it('read while its coin runs, is booked as the platform’s gas at the address, not the owner’s deposit', async () => {
    const user = await createUser(t)
    await fundUser(t, 7, user, 'avax', 1n * AVAX)
    const balance = await balanceOf(t, user.id, 'avax')
    const gas = await platformGasAt(user)
    const txHash = await lostTopUp(user)
    await t.app.services.settlement.watcher.scanNow()
    expect(await openHalt(t, 'avax')).toBeUndefined()
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance)
    expect(await platformGasAt(user)).toBe(gas + TOPUP)
    expect(await recordsOf(txHash), 'no deposit record of the user').toEqual([])
    await expectConsistent(t)
  })

  it('lost with the withdrawal it paid the gas of, is booked by the re-attach, which then succeeds', async () => {
    const user = await createUser(t)
    await fundUser(t, 8, user, 'avax', 1n * AVAX)
    const balance = await balanceOf(t, user.id, 'avax')
    // The address never sent: the platform holds no gas there but the lost top-up.
    expect(await platformGasAt(user)).toBe(0n)
    const topUp = await lostTopUp(user)
    const amount = AVAX / 10n
    const txHash = await signedInLostTimeline(t, user, 'avax', freshAddress(), amount)
    await t.app.services.settlement.watcher.scanNow()
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')
    // Neither the top-up nor the withdrawal touched the owner's balance.
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance)
    expect(await recordsOf(topUp)).toEqual([])

    const page = expectOk(await api().get('/v1/admin/platform-transfers?status=open&limit=100'))
    const finding = page.data.find((f: { txHash: string }) => f.txHash === txHash)
    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }),
    )
    expect(done.status).toBe('reattached')
    // The owner pays the withdrawal and its fee, once; the gas came out of the lost top-up (the
    // withdrawal fee goes to the same platform account, as for any withdrawal, with the
    // withdrawal's report: until then it is held on the owner's wallet).
    const fee = BigInt(finding.prefill.fee)
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance - amount - fee)
    expect(await platformGasAt(user)).toBe(TOPUP - BigInt(finding.gasFee))
    expect(await recordsOf(topUp)).toEqual([])
    const parked = await t.database.db
      .selectFrom('chainEvents')
      .select('txHash')
      .where('held', 'is not', null)
      .where('txHash', 'in', [topUp, txHash])
      .execute()
    expect(parked).toEqual([])

    await t.app.services.settlement.halts.resume('avax', admin.id, 'findings resolved')
    await settleAll(t)
    await t.app.services.settlement.watcher.scanNow()
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance - amount - fee)
    expect(await platformGasAt(user)).toBe(TOPUP + fee - BigInt(finding.gasFee))
    await expectConsistent(t)
  })
})
