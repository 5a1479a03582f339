// Deep reorganisations repaired, on the real dev chain (evm_snapshot/evm_revert): a credited
// deposit the chain took back is found, its value held at once (a withdrawal of it is refused),
// listed for operators, and reversed with compensating entries (audited, the owner notified) or
// kept once it is on the canonical chain again; a halted coin refuses withdrawals with
// COIN_HALTED; the audit log lists the chain.reorg event. Both database drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditRows, expectError, expectOk } from '../admin/helpers.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { USDC, walletAddress } from '../helpers/money.ts'
import { adminCalls, deepReorg, deposit, openReorgWorld, type ReorgWorld } from './reorg-support.ts'

let w: ReorgWorld
const s = () => w.t.app.services
const db = () => w.t.database.db
const available = (userId: string, coin: string) => s().ledger.balance(db(), 'user', userId, coin)

beforeAll(async () => {
  w = await openReorgWorld()
})
afterAll(() => w?.t.close())

/** `workpay_reorg_findings_open{coin}` as /metrics answers it now */
async function openFindingsMetric(coin: string): Promise<number> {
  const res = await w.t.req({ method: 'GET', url: '/metrics' })
  const m = new RegExp(`^workpay_reorg_findings_open\\{coin="${coin}"\\} (\\S+)$`, 'm').exec(res.body)
  return Number(m?.[1])
}

const withdraw = (token: string, password: string, amount: number) =>
  w.t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token,
    payload: { amount, coin: 'usdc', address: w.payer.address, password },
  })

describe('a deep reorganisation', () => {
  it('holds a vanished deposit at once, refuses withdrawals with COIN_HALTED, and an operator reverses it', async () => {
    const api = adminCalls(w)
    const user = await createUser(w.t)
    const address = await walletAddress(w.t, user)
    const sent = await deepReorg(w, async () => {
      const d = await deposit(w, address, 'usdc', 2n * USDC)
      await s().settlement.watcher.scanNow()
      // credited on the branch that is about to be replaced
      expect(await available(user.id, 'usdc')).toBe(2n * USDC)
      return d
    })

    // Every coin halts; the credit stays on the books but is held, not spendable.
    expect((await s().settlement.halts.list()).map((h) => h.reason)).toContain('reorg')
    const f = await api.finding(sent.hash, 'usdc')
    expect(f).toMatchObject({
      status: 'open',
      credited: true,
      amount: (2n * USDC).toString(),
      held: (2n * USDC).toString(),
      shortfall: '0',
      ownerKind: 'user',
      ownerId: user.id,
      address: address.toLowerCase(),
      decimals: 6,
      actions: { reverse: true, keep: true },
    })
    expect(await available(user.id, 'usdc')).toBe(0n)
    const hold = await s().ledger.getHold(db(), f.holdId)
    expect(hold).toMatchObject({ status: 'pending', amount: 2n * USDC, kind: 'reorg.hold' })
    expect((await api.findings('?status=open')).data.map((x: any) => x._id)).toContain(f._id)
    expect(await openFindingsMetric('usdc')).toBe(1)
    expect((await api.findings('?status=kept')).data.map((x: any) => x._id)).not.toContain(f._id)

    // A withdrawal of the coin is refused while it is halted; a deposit meanwhile is recorded
    // (parked, not credited)...
    expectError(await withdraw(user.token, user.password, 1), 503, 'COIN_HALTED')
    await deposit(w, address, 'usdc', USDC)
    await s().settlement.watcher.scanNow()
    const parked = await db()
      .selectFrom('chainEvents')
      .select(['transferId', 'held'])
      .where('address', '=', address.toLowerCase())
      .where('held', 'is not', null)
      .execute()
    expect(parked).toHaveLength(1)
    expect(await available(user.id, 'usdc')).toBe(0n)
    // ...and once the coin is resumed, that deposit is credited, while the held value still cannot
    // be withdrawn.
    expectOk(await api.post('/v1/admin/coins/usdc/resume', { reason: 'finding held; resuming usdc' }))
    await s().settlement.watcher.scanNow()
    expect(await available(user.id, 'usdc')).toBe(USDC)
    expectError(await withdraw(user.token, user.password, 2), 422, 'INSUFFICIENT_BALANCE')

    // The audit log lists the watcher's event and the finding, with actor `system`.
    const reorgs = expectOk(await api.get('/v1/admin/audit?action=chain.reorg'))
    expect(reorgs.total).toBeGreaterThanOrEqual(1)
    expect(reorgs.data[0]).toMatchObject({ actorId: 'system', action: 'chain.reorg', targetType: 'chain' })
    expect(reorgs.data[0].details).toMatchObject({ vanishedDeposits: expect.any(Number) })
    const found = expectOk(await api.get(`/v1/admin/audit?action=reorg.finding&target=${f._id}`))
    expect(found.data).toHaveLength(1)
    const halted = expectOk(await api.get('/v1/admin/audit?action=coin.halted'))
    expect(halted.data.some((r: any) => r.targetId === 'usdc' && r.reason === 'reorg')).toBe(true)
    expect(expectOk(await api.get('/v1/admin/audit?action=coin.resumed')).total).toBeGreaterThanOrEqual(1)

    // Reversed: the hold goes back to where the credit came from, audited, the owner notified.
    const reversed = expectOk(await api.post(`/v1/admin/reorgs/${f._id}/reverse`))
    expect(reversed).toMatchObject({
      _id: f._id,
      status: 'reversed',
      resolvedBy: w.admin.id,
      shortfall: '0',
      lossTransferId: null,
      actions: { reverse: false, keep: false },
    })
    // (the later deposit stays: nothing was spent, so nothing is taken beyond the hold)
    expect(await s().ledger.balance(db(), 'user', user.id, 'usdc')).toBe(USDC)
    expect(await s().ledger.getHold(db(), f.holdId)).toMatchObject({
      status: 'posted',
      postedAmount: 2n * USDC,
    })
    const entries = await s().ledger.entries(db(), reversed.reversalTransferId)
    const credit = await s().ledger.entries(db(), f.creditTransferId)
    // the compensating entries mirror the credit's
    expect(entries.map((e) => [e.accountId, -e.amount]).sort()).toEqual(
      credit.map((e) => [e.accountId, e.amount]).sort(),
    )
    // The user's record of the deposit says it was reversed.
    const records = await db()
      .selectFrom('transactions')
      .select(['status', 'description'])
      .where('ownerId', '=', user.id)
      .where('type', '=', 'deposit')
      .execute()
    expect(records).toContainEqual({
      status: 'failed',
      description: expect.stringContaining('Deposit reversed'),
    })
    expect(records.filter((r) => r.status === 'completed')).toHaveLength(1)
    const audit = await auditRows(w.t, 'reorg.reverse')
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actorId: w.admin.id, targetType: 'reorg', targetId: f._id })
    const notes = await db()
      .selectFrom('notifications')
      .select(['type', 'ref'])
      .where('userId', '=', user.id)
      .where('type', '=', 'deposit_reversed')
      .execute()
    expect(notes).toEqual([{ type: 'deposit_reversed', ref: f._id }])
    expectError(await api.post(`/v1/admin/reorgs/${f._id}/reverse`), 409, 'FINDING_RESOLVED')
    expectError(await api.post(`/v1/admin/reorgs/${f._id}/keep`), 409, 'FINDING_RESOLVED')
    expect(await openFindingsMetric('usdc')).toBe(0)

    await api.resumeAll()
    await s().settlement.watcher.scanNow()
    await expectLedgerConsistent(db(), { chain: s().chain })
  })

  it('keeps a deposit once it is on the canonical chain again, and not before', async () => {
    const api = adminCalls(w)
    const user = await createUser(w.t)
    const address = await walletAddress(w.t, user)
    const sent = await deepReorg(w, () => deposit(w, address, 'usdc', 3n * USDC))
    const f = await api.finding(sent.hash, 'usdc')
    expect(f).toMatchObject({ status: 'open', held: (3n * USDC).toString() })
    expect(await available(user.id, 'usdc')).toBe(0n)

    // Not on the chain: it cannot be kept.
    expectError(await api.post(`/v1/admin/reorgs/${f._id}/keep`), 409, 'DEPOSIT_NOT_CANONICAL')
    // The same signed transaction is mined again on the new branch, with a block on top.
    await s().chain.broadcast(sent.raw)
    await s().chain.waitForReceipt(sent.hash)
    await s().chain.devnet!.mine(1)
    await s().settlement.watcher.scanNow()
    const kept = expectOk(await api.post(`/v1/admin/reorgs/${f._id}/keep`))
    expect(kept).toMatchObject({ status: 'kept', resolvedBy: w.admin.id })
    expect(await s().ledger.getHold(db(), f.holdId)).toMatchObject({ status: 'voided' })
    expect(await available(user.id, 'usdc')).toBe(3n * USDC)
    expect(await auditRows(w.t, 'reorg.keep')).toHaveLength(1)

    // Credited once: resuming the coins does not credit the mined-again deposit a second time.
    await api.resumeAll()
    await s().settlement.watcher.scanNow()
    await s().settlement.watcher.scanNow()
    expect(await available(user.id, 'usdc')).toBe(3n * USDC)
    await expectLedgerConsistent(db(), { chain: s().chain })
  })

  it('is reversed, not kept, when the watcher recorded the deposit anew (mined again at another log index)', async () => {
    const api = adminCalls(w)
    const user = await createUser(w.t)
    const address = await walletAddress(w.t, user)
    const sent = await deepReorg(w, () => deposit(w, address, 'usdc', 4n * USDC))
    const f = await api.finding(sent.hash, 'usdc')
    // Mined again in a block where another token transfer comes first: its log has index 1 now.
    const chain = s().chain
    const other = chain.devnet!.accounts[3]!
    await chain.devnet!.fund(other.address, 'usdc', USDC)
    const fees = await chain.estimateFees()
    const rich =
      fees.type === 'eip1559'
        ? { ...fees, maxFeePerGas: fees.maxFeePerGas * 3n, maxPriorityFeePerGas: fees.maxFeePerGas * 2n }
        : fees
    await chain.devnet!.setAutomine(false)
    try {
      const first = await chain.signTransfer(other.privateKey, {
        coin: 'usdc',
        to: w.payer.address,
        amount: USDC,
        nonce: await chain.getNonce(other.address, 'pending'),
        fees: rich,
      })
      await chain.broadcast(first.raw)
      await chain.broadcast(sent.raw)
      await chain.devnet!.mine(1)
    } finally {
      await chain.devnet!.setAutomine(true)
    }
    const again = await chain.receiptDetails(sent.hash)
    expect(again.status).toBe('success')
    expect(again.logs[0]!.logIndex).toBe(1)
    await chain.devnet!.mine(1)
    await s().settlement.watcher.scanNow()
    // recorded anew, parked while the coin is halted
    const events = await db()
      .selectFrom('chainEvents')
      .select(['logIndex', 'held'])
      .where('txHash', '=', sent.hash.toLowerCase())
      .orderBy('logIndex')
      .execute()
    expect(events.map((e) => [e.logIndex, e.held !== null])).toEqual([
      [0, false],
      [1, true],
    ])
    expectError(await api.post(`/v1/admin/reorgs/${f._id}/keep`), 409, 'DEPOSIT_RECORDED_AGAIN')
    expectOk(await api.post(`/v1/admin/reorgs/${f._id}/reverse`))
    await api.resumeAll()
    await s().settlement.watcher.scanNow()
    await s().settlement.watcher.scanNow()
    // credited once, through the movement recorded anew
    expect(await available(user.id, 'usdc')).toBe(4n * USDC)
    await expectLedgerConsistent(db(), { chain: s().chain })
  })

  it('answers 401 without a token, 403 to a non-admin, 404 for an unknown finding', async () => {
    const api = adminCalls(w)
    const user = await createUser(w.t)
    const id = '65f1c0a2b3c4d5e6f7a8b9a1'
    for (const [method, url] of [
      ['GET', '/v1/admin/reorgs'],
      ['POST', `/v1/admin/reorgs/${id}/reverse`],
      ['POST', `/v1/admin/reorgs/${id}/keep`],
    ] as const) {
      const payload = method === 'POST' ? { reason: 'trying' } : undefined
      expectError(await w.t.req({ method, url, payload }), 401, 'UNAUTHENTICATED')
      expectError(await w.t.req({ method, url, payload, token: user.token }), 403, 'FORBIDDEN')
    }
    expectError(await api.post(`/v1/admin/reorgs/${id}/reverse`), 404, 'NOT_FOUND')
    expectError(await api.post(`/v1/admin/reorgs/${id}/keep`), 404, 'NOT_FOUND')
    expectError(await api.post(`/v1/admin/reorgs/${id}/reverse`, {}), 400, 'VALIDATION_ERROR')
    expectError(await api.get('/v1/admin/reorgs?status=lost'), 400, 'VALIDATION_ERROR')
  })
})
