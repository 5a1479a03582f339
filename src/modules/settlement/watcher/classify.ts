// What a block range means for custodial addresses, decided without any I/O: from the fetched
// blocks and logs, the receipts of the transactions concerned and the lookups of custodial
// addresses and of transactions the platform signed, the deposits, external withdrawals (and
// their gas) and the platform's own transfers to apply, in chain order.
//
// - Native value and token Transfer logs arriving at a custodial address count, whoever sent
//   them; native value only when its transaction succeeded (token logs exist only for successes).
// - Value leaving a custodial address in a transaction the platform did not sign is an external
//   withdrawal, and the gas of every such transaction (failed ones too) a fee.
// - Value the platform signed for (registered before broadcasting) is booked by its sender on the
//   way out; on the way in it is an own transfer, credited to the account the sender named.
// - Native value the gas wallet sent that nothing registered (a top-up a restore lost) is an own
//   transfer too: the platform's gas at the address (platform-gas.ts), never the owner's deposit.
import type { ChainTx, TokenTransfer } from '../../../platform/chain/types.ts'
import type { Classified, ClassifyInput, Custodial, FetchedRange, Movement, MovementKind } from './types.ts'

const lower = (s: string) => s.toLowerCase()

/** Every address the range touches: senders and recipients of its transactions and token logs. */
export function candidateAddresses(range: FetchedRange): string[] {
  const out = new Set<string>()
  for (const b of range.blocks)
    for (const t of b.transactions) {
      out.add(lower(t.from))
      if (t.to) out.add(lower(t.to))
    }
  for (const t of range.tokenTransfers) {
    out.add(lower(t.from))
    out.add(lower(t.to))
  }
  return [...out]
}

/**
 * Hashes (lower case) of the transactions whose receipts classification needs: every transaction
 * sent by a custodial key (its gas), carrying native value to one (its success), or moving a
 * token to or from one (the record shown to the user).
 */
export function receiptsNeeded(range: FetchedRange, custodial: ReadonlyMap<string, Custodial>): string[] {
  const out = new Set<string>()
  for (const b of range.blocks)
    for (const t of b.transactions) {
      if (custodial.has(lower(t.from)) || (t.to && t.value > 0n && custodial.has(lower(t.to))))
        out.add(lower(t.hash))
    }
  for (const t of range.tokenTransfers)
    if (custodial.has(lower(t.from)) || custodial.has(lower(t.to))) out.add(lower(t.hash))
  return [...out]
}

const PHASE: Record<MovementKind, number> = { fee: 0, withdrawal: 1, deposit: 2 }

/** Chain order: block, transaction, the fee first, then log order, withdrawals before deposits. */
export function chainOrder(a: Movement, b: Movement): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber < b.blockNumber ? -1 : 1
  if (a.txIndex !== b.txIndex) return a.txIndex - b.txIndex
  const la = a.kind === 'fee' ? -2 : a.logIndex
  const lb = b.kind === 'fee' ? -2 : b.logIndex
  if (la !== lb) return la - lb
  return PHASE[a.kind] - PHASE[b.kind]
}

export function classify(input: ClassifyInput): Classified {
  const { range, receipts, custodial, own, nativeCoin } = input
  const blockHash = new Map(range.blocks.map((b) => [b.number, lower(b.hash)]))
  const txIndex = new Map<string, number>()
  for (const b of range.blocks)
    b.transactions.forEach((t, i) => {
      txIndex.set(lower(t.hash), i)
    })

  const out: Classified = { deposits: [], externalWithdrawals: [], ownTransfers: [], ordered: [] }
  const add = (
    kind: MovementKind,
    m: { hash: string; from: string; to: string | null; amount: bigint; blockNumber: bigint; coin: string },
    logIndex: number,
    address: string,
  ) => {
    const key = custodial.get(address)
    if (!key || m.amount <= 0n) return
    const hash = lower(m.hash)
    const ownTx = own.get(hash)
    // Native value from the gas wallet that no transfer registered: a gas top-up whose record a
    // restore lost (the gas wallet pays nothing else). The platform's, like a registered one.
    const platformGas =
      kind === 'deposit' &&
      !ownTx &&
      logIndex === -1 &&
      !!input.gasWallet &&
      lower(m.from) === input.gasWallet
    const movement: Movement = {
      kind,
      txHash: hash,
      logIndex,
      coin: m.coin,
      amount: m.amount,
      from: lower(m.from),
      to: m.to === null ? null : lower(m.to),
      address,
      custodial: key,
      blockNumber: m.blockNumber,
      blockHash: blockHash.get(m.blockNumber) ?? '',
      txIndex: txIndex.get(hash) ?? 0,
      own: ownTx !== undefined || platformGas,
      creditAccountId: kind === 'deposit' ? (ownTx?.creditAccountId ?? null) : null,
      ...(platformGas ? { platformGas } : {}),
    }
    if (kind !== 'deposit') out.externalWithdrawals.push(movement)
    else if (movement.own) out.ownTransfers.push(movement)
    else out.deposits.push(movement)
    out.ordered.push(movement)
  }

  const succeeded = (t: ChainTx) => receipts.get(lower(t.hash))?.status === 'success'
  for (const b of range.blocks)
    for (const t of b.transactions) {
      const from = lower(t.from)
      const to = t.to === null ? null : lower(t.to)
      const native = {
        hash: t.hash,
        from,
        to,
        amount: t.value,
        blockNumber: b.number,
        coin: nativeCoin ?? '',
      }
      if (nativeCoin && to !== null && t.value > 0n && succeeded(t)) {
        add('deposit', native, -1, to)
        if (!own.has(lower(t.hash))) add('withdrawal', native, -1, from)
      }
      // Gas of every transaction a custodial key signed without the platform, failed ones too.
      const receipt = receipts.get(lower(t.hash))
      if (nativeCoin && receipt && custodial.has(from) && !own.has(lower(t.hash)))
        add('fee', { ...native, amount: receipt.fee }, -1, from)
    }
  for (const t of range.tokenTransfers) {
    const m = tokenMovement(t)
    add('deposit', m, t.logIndex, m.to)
    if (!own.has(lower(t.hash))) add('withdrawal', m, t.logIndex, m.from)
  }
  for (const list of [out.deposits, out.externalWithdrawals, out.ownTransfers, out.ordered])
    list.sort(chainOrder)
  return out
}

function tokenMovement(t: TokenTransfer) {
  return {
    hash: t.hash,
    from: lower(t.from),
    to: lower(t.to),
    amount: t.amount,
    blockNumber: t.blockNumber,
    coin: t.coin,
  }
}
