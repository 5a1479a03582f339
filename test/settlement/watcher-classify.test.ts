// The watcher's classification on blocks, logs and receipts recorded from a real devnet
// (fixtures/record.ts): what counts as a deposit, an external withdrawal (with its gas), an own
// transfer, or nothing. Pure: no database, no chain.
import { describe, expect, it } from 'vitest'
import {
  candidateAddresses,
  classify,
  receiptsNeeded,
} from '../../src/modules/settlement/watcher/classify.ts'
import type { Custodial, Movement } from '../../src/modules/settlement/watcher/types.ts'
import type { TransferReceipt } from '../../src/platform/chain/types.ts'
import { type ChainFixture, loadFixture } from './fixtures/format.ts'

const AVAX = 10n ** 18n
const USDC = 10n ** 6n

/** Classifies a fixture as the watcher does: receipts of the transactions it asks for only. */
function run(
  f: ChainFixture,
  opts: { custodial?: Custodial[]; receipts?: (r: TransferReceipt) => TransferReceipt } = {},
) {
  const all = new Map((opts.custodial ?? f.custodial).map((c) => [c.address, c]))
  const candidates = new Set(candidateAddresses(f.range))
  const custodial = new Map([...all].filter(([a]) => candidates.has(a)))
  const needed = receiptsNeeded(f.range, custodial)
  const receipts = new Map(needed.map((h) => [h, (opts.receipts ?? ((r) => r))(f.receipts[h]!)]))
  const own = new Map(Object.entries(f.own).filter(([h]) => needed.includes(h)))
  return { needed, result: classify({ range: f.range, receipts, custodial, own, nativeCoin: f.nativeCoin }) }
}

const pick = (m: Movement) => ({
  kind: m.kind,
  coin: m.coin,
  amount: m.amount,
  address: m.address,
  from: m.from,
  own: m.own,
  creditAccountId: m.creditAccountId,
})

describe('classify (recorded devnet blocks)', () => {
  it('a native deposit: value to a user address from an outside wallet', () => {
    const f = loadFixture('native-deposit')
    const { needed, result } = run(f)
    const tx = f.range.blocks[0]!.transactions[0]!
    expect(needed).toEqual([tx.hash.toLowerCase()])
    expect(result.deposits.map(pick)).toEqual([
      {
        kind: 'deposit',
        coin: 'avax',
        amount: (3n * AVAX) / 2n,
        address: f.addresses.user,
        from: f.addresses.outsider,
        own: false,
        creditAccountId: null,
      },
    ])
    expect(result.deposits[0]).toMatchObject({
      txHash: tx.hash.toLowerCase(),
      logIndex: -1,
      blockNumber: f.range.blocks[0]!.number,
      blockHash: f.range.blocks[0]!.hash.toLowerCase(),
      custodial: { ownerKind: 'user', ownerId: 'u'.repeat(24) },
    })
    expect(result.externalWithdrawals).toEqual([])
    expect(result.ownTransfers).toEqual([])
    expect(result.ordered).toEqual(result.deposits)
  })

  it('counts native value only when its transaction succeeded', () => {
    const f = loadFixture('native-deposit')
    const { result } = run(f, { receipts: (r) => ({ ...r, status: 'reverted' }) })
    expect(result.ordered).toEqual([])
  })

  it('a token deposit: a Transfer log to a user address', () => {
    const f = loadFixture('token-deposit')
    const { result } = run(f)
    expect(result.deposits.map(pick)).toEqual([
      {
        kind: 'deposit',
        coin: 'usdc',
        amount: 25_500_000n,
        address: f.addresses.user,
        from: f.addresses.outsider,
        own: false,
        creditAccountId: null,
      },
    ])
    expect(result.deposits[0]!.logIndex).toBe(f.range.tokenTransfers[0]!.logIndex)
    expect(result.externalWithdrawals).toEqual([])
  })

  it('an external withdrawal after the key export: value out and the gas of every transaction, failed ones too', () => {
    const f = loadFixture('external-withdrawal')
    const { result } = run(f)
    const txs = f.range.blocks.flatMap((b) => b.transactions)
    expect(txs).toHaveLength(3)
    const fee = (i: number) => f.receipts[txs[i]!.hash.toLowerCase()]!.fee
    expect(f.receipts[txs[2]!.hash.toLowerCase()]!.status).toBe('reverted')
    const x = f.addresses.exported
    expect(result.ordered.map((m) => [m.kind, m.coin, m.amount, m.address, m.txHash])).toEqual([
      ['fee', 'avax', fee(0), x, txs[0]!.hash.toLowerCase()],
      ['withdrawal', 'usdc', 40n * USDC, x, txs[0]!.hash.toLowerCase()],
      ['fee', 'avax', fee(1), x, txs[1]!.hash.toLowerCase()],
      ['withdrawal', 'avax', AVAX / 2n, x, txs[1]!.hash.toLowerCase()],
      ['fee', 'avax', fee(2), x, txs[2]!.hash.toLowerCase()],
    ])
    expect(result.externalWithdrawals).toEqual(result.ordered)
    expect(result.deposits).toEqual([])
    expect(result.ordered.every((m) => m.custodial.exportedAt instanceof Date && !m.own)).toBe(true)
  })

  it('own transfers: credited to the account the platform named, never a withdrawal of the sender', () => {
    const f = loadFixture('own-transfer')
    const { result } = run(f)
    expect(result.ownTransfers.map(pick)).toEqual([
      {
        kind: 'deposit',
        coin: 'avax',
        amount: AVAX / 100n,
        address: f.addresses.escrow,
        from: f.addresses.gasWallet,
        own: true,
        creditAccountId: 't'.repeat(24),
      },
      {
        kind: 'deposit',
        coin: 'usdc',
        amount: 10n * USDC,
        address: f.addresses.escrow,
        from: f.addresses.user,
        own: true,
        creditAccountId: null,
      },
    ])
    // The user address signed the payment, but the platform did: no withdrawal, no fee here.
    expect(result.externalWithdrawals).toEqual([])
    expect(result.deposits).toEqual([])
  })

  it('the same payment from the user address is an external withdrawal when the platform did not sign it', () => {
    const f = loadFixture('own-transfer')
    const { result } = run({ ...f, own: {} })
    const payment = f.range.blocks[1]!.transactions[0]!.hash.toLowerCase()
    expect(result.externalWithdrawals.map((m) => [m.kind, m.coin, m.address, m.txHash])).toEqual([
      ['fee', 'avax', f.addresses.user, payment],
      ['withdrawal', 'usdc', f.addresses.user, payment],
    ])
    expect(result.deposits.map((m) => [m.coin, m.address])).toEqual([
      ['avax', f.addresses.escrow],
      ['usdc', f.addresses.escrow],
    ])
  })

  it('an unrelated transaction: nothing to read, nothing to apply', () => {
    const f = loadFixture('unrelated')
    const { needed, result } = run(f)
    expect(new Set(candidateAddresses(f.range))).toEqual(
      new Set([f.addresses.outsider, f.addresses.other, f.range.tokenTransfers[0]!.token.toLowerCase()]),
    )
    expect(needed).toEqual([])
    expect(result).toEqual({ deposits: [], externalWithdrawals: [], ownTransfers: [], ordered: [] })
  })

  it('sees nothing at addresses that are not custodial', () => {
    const f = loadFixture('token-deposit')
    expect(run(f, { custodial: [] }).result.ordered).toEqual([])
  })
})
