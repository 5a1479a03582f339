// The operator's global search and detail pages on a real database and the dev chain: a job paid
// into escrow and disputed, a deposit and a withdrawal of the talent; each is found by what an
// operator is given (an email, a transaction hash, an address, an id, part of a name), and each
// detail page answers what it shows, or 404 NOT_FOUND for an id it does not know.
import { describe, expect, it } from 'vitest'
import type { TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'
import { workScene } from '../work/helpers.ts'
import { elevateSession, expectError, expectOk } from './helpers.ts'

const W = workScene()
const NO_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const get = (operator: TestUser, url: string) => W.scene.t.req({ method: 'GET', url, token: operator.token })
const search = async (operator: TestUser, q: string) =>
  expectOk(await get(operator, `/v1/admin/search?q=${encodeURIComponent(q)}`)) as {
    queryKind: string
    hits: { kind: string; id: string; match: string; link: string; label: string }[]
  }
const kinds = (r: { hits: { kind: string; id: string }[] }) => r.hits.map((h) => `${h.kind}:${h.id}`)

describe('the global search and the detail pages', () => {
  it('finds a user, a deposit, a withdrawal, an escrow, a job and its dispute, and shows each', async () => {
    const { t, creator, talent, stranger } = W.scene
    const db = t.database.db
    // An operator: the stranger gets the admin role and steps up.
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', stranger.id).execute()
    await elevateSession(t, stranger)
    const op = stranger

    // A job paid into escrow, disputed by its creator.
    const { id: jobId, q } = await W.ongoingJob()
    expect((await W.work(creator, jobId, 'dispute', { reason: 'The page does not load' })).code).toBe(200)
    // what the parties wrote in the job's conversation
    const conv = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/chat',
        token: creator.token,
        payload: { collectionId: jobId },
      }),
    )
    expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/chat/${conv._id}/messages`,
        token: creator.token,
        payload: { content: 'Still blank on my phone' },
      }),
    )
    // The talent's deposit and a withdrawal to an outside address.
    await fundUser(t, 4, talent, 'avax', 1n * AVAX)
    const to = freshAddress()
    const { withdrawalId, transferId } = await withdrawAvax(t, talent, 0.25, to)
    await settleAll(t)
    const custodial = (await walletAddress(t, talent)).toLowerCase()
    const deposit = await db
      .selectFrom('chainEvents')
      .select(['txHash'])
      .where('address', '=', custodial)
      .where('kind', '=', 'deposit')
      .where('amount', '=', String(AVAX))
      .executeTakeFirstOrThrow()
    const sent = await db
      .selectFrom('outgoingTransfers')
      .select(['txHash', 'status'])
      .where('id', '=', transferId)
      .executeTakeFirstOrThrow()
    expect(sent.status).toBe('completed')

    // by email, any case
    const byEmail = await search(op, talent.email.toUpperCase())
    expect(byEmail.queryKind).toBe('email')
    expect(byEmail.hits).toEqual([
      expect.objectContaining({ kind: 'user', id: talent.id, match: 'email', link: `#/user/${talent.id}` }),
    ])
    // by the deposit's hash: the deposit and the account it credited
    const byDeposit = await search(op, deposit.txHash.toUpperCase().replace('0X', '0x'))
    expect(byDeposit.queryKind).toBe('txHash')
    expect(kinds(byDeposit)).toEqual([`deposit:${deposit.txHash}`, `user:${talent.id}`])
    expect(byDeposit.hits[0]).toMatchObject({ link: `#/deposit/${deposit.txHash}` })
    expect(byDeposit.hits[0]!.label).toContain('1 AVAX')
    // by the withdrawal's hash: its transfer and the withdrawal
    const byTx = await search(op, sent.txHash!)
    expect(kinds(byTx)).toEqual([`transfer:${transferId}`, `withdrawal:${withdrawalId}`])
    // by the custodial address (checksummed): its owner first, then what the platform sent to it
    // (the gas top-up that paid the withdrawal's fee)
    const byAddress = await search(op, await walletAddress(t, talent))
    expect(byAddress.queryKind).toBe('address')
    expect(byAddress.hits[0]).toMatchObject({ kind: 'user', id: talent.id, match: 'custodialAddress' })
    expect(byAddress.hits.slice(1).map((h) => [h.kind, h.label.split(' ')[0]])).toEqual([
      ['transfer', 'gas.topup'],
    ])
    // by the destination: the withdrawal and its transfer
    const byDestination = await search(op, to)
    expect(kinds(byDestination)).toEqual([`withdrawal:${withdrawalId}`, `transfer:${transferId}`])
    expect(byDestination.hits.every((h) => h.match === 'destinationAddress')).toBe(true)
    // by the escrow's address: the escrow
    expect(kinds(await search(op, q.address))).toEqual([`escrow:${q.escrowId}`])
    // by ids: the escrow; the job and its dispute; the withdrawal; the transfer; the user
    expect(kinds(await search(op, q.escrowId))).toEqual([`escrow:${q.escrowId}`])
    const byJob = await search(op, jobId)
    const dispute = byJob.hits.find((h) => h.kind === 'dispute')!
    expect(kinds(byJob)).toEqual([`job:${jobId}`, `dispute:${dispute.id}`])
    expect(dispute.match).toBe('jobId')
    expect(kinds(await search(op, dispute.id))).toEqual([`dispute:${dispute.id}`])
    expect(kinds(await search(op, withdrawalId))).toEqual([`withdrawal:${withdrawalId}`])
    expect(kinds(await search(op, transferId))).toEqual([`transfer:${transferId}`])
    expect(kinds(await search(op, talent.id))).toEqual([`user:${talent.id}`])
    // part of a name; and nothing
    const byName = await search(op, 'tala talent')
    expect(byName.queryKind).toBe('text')
    expect(kinds(byName)).toContain(`user:${talent.id}`)
    expect((await search(op, `0x${'ab'.repeat(32)}`)).hits).toEqual([])
    expectError(await get(op, '/v1/admin/search?q=%20'), 400, 'VALIDATION_ERROR')

    // The user page: address, balances, deposits, escrows, jobs and sessions.
    const user = expectOk(await get(op, `/v1/admin/users/${talent.id}/overview`))
    expect(user.user).toMatchObject({ _id: talent.id, email: talent.email })
    expect(user.custodialAddress).toBe(custodial)
    expect(user.balances.find((b: { coin: string }) => b.coin === 'avax').available).toMatch(/^[0-9]+$/)
    // newest first: the gas top-up of the withdrawal's fee after the deposit
    expect(user.deposits.map((d: { amount: string }) => d.amount).at(-1)).toBe(String(AVAX))
    expect(user.deposits.at(-1)).toMatchObject({ txHash: deposit.txHash, coin: 'avax', state: 'credited' })
    expect(user.deposits.at(-1).amountText).toBe('1 AVAX')
    expect(user.escrows).toEqual([expect.objectContaining({ _id: q.escrowId, role: 'receiver' })])
    expect(user.jobs).toEqual([expect.objectContaining({ _id: jobId, role: 'talent' })])
    expect(user.sessions.length).toBeGreaterThan(0)
    const creatorPage = expectOk(await get(op, `/v1/admin/users/${creator.id}/overview`))
    expect(creatorPage.escrows).toEqual([expect.objectContaining({ _id: q.escrowId, role: 'payer' })])
    expect(creatorPage.jobs).toEqual([expect.objectContaining({ _id: jobId, role: 'creator' })])

    // The withdrawal, the escrow with its legs, the job and the dispute.
    expect(expectOk(await get(op, `/v1/admin/withdrawals/${withdrawalId}`))).toMatchObject({
      _id: withdrawalId,
      userId: talent.id,
      transferId,
      txHash: sent.txHash,
      address: to,
      status: 'completed',
    })
    const escrow = expectOk(await get(op, `/v1/admin/escrows/${q.escrowId}`))
    expect(escrow).toMatchObject({
      _id: q.escrowId,
      collectionId: jobId,
      payerId: creator.id,
      payerEmail: creator.email,
      receiverId: talent.id,
      status: 'paid',
      address: q.address.toLowerCase(),
    })
    expect(Array.isArray(escrow.legs)).toBe(true)
    const job = expectOk(await get(op, `/v1/admin/jobs/${jobId}`))
    expect(job).toMatchObject({
      _id: jobId,
      name: 'Landing page',
      description: 'One responsive page',
      creatorId: creator.id,
      receiverId: talent.id,
      escrowId: q.escrowId,
      issue: 'The page does not load',
      dispute: { id: dispute.id, status: 'open' },
    })
    const byDisputeId = expectOk(await get(op, `/v1/admin/disputes/${dispute.id}`))
    expect(byDisputeId).toMatchObject({
      _id: dispute.id,
      collection: jobId,
      reason: 'The page does not load',
      status: 'open',
      escrowAmount: 100,
      job: { _id: jobId, description: 'One responsive page' },
      messages: { total: 1, data: [{ user: creator.id, content: 'Still blank on my phone' }] },
    })
    expect(expectOk(await get(op, `/v1/admin/disputes/${jobId}`))._id).toBe(dispute.id)
    expect(expectOk(await get(op, '/v1/admin/chain'))).toMatchObject({
      chainId: t.app.services.chain.chainId,
      explorerTxUrl: null,
    })

    // Unknown ids: 404 NOT_FOUND.
    for (const path of [
      `/v1/admin/users/${NO_ID}/overview`,
      `/v1/admin/withdrawals/${NO_ID}`,
      `/v1/admin/escrow-legs/${NO_ID}`,
      `/v1/admin/escrows/${NO_ID}`,
      `/v1/admin/jobs/${NO_ID}`,
      `/v1/admin/disputes/${NO_ID}`,
    ])
      expectError(await get(op, path), 404, 'NOT_FOUND')
  })

  it('lists a user’s withdrawals newest first on request (the user page), oldest first by default', async () => {
    const { t, talent, stranger: op } = W.scene
    const first = (
      await t.database.db
        .selectFrom('withdrawals')
        .select('id')
        .where('ownerId', '=', talent.id)
        .executeTakeFirstOrThrow()
    ).id
    const { withdrawalId: second } = await withdrawAvax(t, talent, 0.1, freshAddress())
    const ids = async (order: string) =>
      (
        expectOk(await get(op, `/v1/admin/withdrawals?user=${talent.id}${order}`)).data as { _id: string }[]
      ).map((w) => w._id)
    expect(await ids('&order=newest')).toEqual([second, first])
    expect(await ids('&order=oldest')).toEqual([first, second])
    expect(await ids('')).toEqual([first, second])
    expectError(
      await get(op, `/v1/admin/withdrawals?user=${talent.id}&order=sideways`),
      400,
      'VALIDATION_ERROR',
    )
  })
})
