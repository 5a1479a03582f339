// The reconciliation checks, used by the reconciliation job and by the tests' ledger assertions:
// - the ledger's own invariants: every transfer sums to zero, cached balances are the sum of
//   their entries (system accounts keep none), an account's held amount is the sum of its pending
//   holds and stays within its balance, and nothing but the chain's clearing account is below
//   zero;
// - ledger = chain: for every custodial address and coin, the balance on chain at the watcher's
//   cursor block equals the ledger balance of the accounts at that address (the owner's account
//   and platform value parked there). Value reserved by pending holds (withdrawals, in-app
//   payments, gas) is still part of those balances: it leaves the address only when mined.
import type { Db, Executor, Tx } from '../../../db/index.ts'
import type { LedgerAccountKind } from '../../../db/tables/ledger.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import { isSystemKind, MAY_GO_NEGATIVE, SYSTEM_KINDS } from '../../ledger/types.ts'
import type { KeyOwnerKind } from '../keys.ts'
import { watcherRepo } from '../watcher/repo.ts'
import { reconcileRepo } from './repo.ts'

export type InvariantCheck =
  | 'transfer_unbalanced'
  | 'balance_not_entries'
  | 'system_balance_cached'
  | 'held_out_of_range'
  | 'held_not_holds'
  | 'negative_balance'
  // reservations (reservations.ts)
  | 'transfer_not_held'
  | 'withdrawal_fee_hold'
  | 'hold_without_owner'

export interface InvariantViolation {
  check: InvariantCheck
  coin: string
  /** the transfer or account concerned */
  id: string
  /** what was found (base units as decimal strings) */
  detail: Record<string, string>
}

/** An address whose chain balance is not its ledger balance. */
export interface AddressMismatch {
  address: string
  ownerKind: KeyOwnerKind
  ownerId: string
  coin: string
  /** base units */
  ledger: string
  chain: string
  /** chain − ledger */
  drift: string
}

export interface CoinComparison {
  coin: string
  ledgerTotal: bigint
  chainTotal: bigint
  /** chain − ledger over the addresses compared */
  drift: bigint
  checked: number
  skipped: number
  mismatches: AddressMismatch[]
}

export interface ChainComparison {
  /** the block chain balances were read at (the watcher's cursor; null: latest, no cursor yet) */
  block: bigint | null
  coins: CoinComparison[]
  /** addresses not compared for a coin this time, and why (their effect on chain is in flight) */
  skipped: { address: string; coin: string; reason: 'in_flight' | 'parked' }[]
}

const OWNER_ACCOUNT: Record<KeyOwnerKind, LedgerAccountKind> = {
  user: 'user',
  escrow: 'escrow',
  treasury: 'treasury',
}

/** Runs `fn` on one snapshot of the database (repeatable read), or in the caller's transaction. */
function snapshot<T>(ex: Executor, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (ex.isTransaction) return fn(ex as Tx)
  return (ex as Db).transaction().setIsolationLevel('repeatable read').execute(fn)
}

/** Every breach of the ledger's invariants (none in a sound ledger). */
export function ledgerInvariants(ex: Executor): Promise<InvariantViolation[]> {
  return snapshot(ex, async (tx) => {
    const out: InvariantViolation[] = []
    for (const t of await reconcileRepo.unbalancedTransfers(tx))
      out.push({
        check: 'transfer_unbalanced',
        coin: t.coin,
        id: t.transferId,
        detail: { sum: String(t.total) },
      })
    for (const a of await reconcileRepo.accountsNotEntries(tx, SYSTEM_KINDS)) {
      const entries = String(a.total ?? '0')
      const name = { kind: a.kind, ownerId: a.ownerId }
      if (isSystemKind(a.kind)) {
        // System accounts keep no cached balance: their entries are their balance.
        if (BigInt(a.balance) !== 0n)
          out.push({
            check: 'system_balance_cached',
            coin: a.coin,
            id: a.id,
            detail: { ...name, balance: a.balance },
          })
        if (!MAY_GO_NEGATIVE.includes(a.kind) && BigInt(entries) < 0n)
          out.push({
            check: 'negative_balance',
            coin: a.coin,
            id: a.id,
            detail: { ...name, balance: entries },
          })
        continue
      }
      if (BigInt(a.balance) !== BigInt(entries))
        out.push({
          check: 'balance_not_entries',
          coin: a.coin,
          id: a.id,
          detail: { ...name, balance: a.balance, entries },
        })
      if (BigInt(a.balance) < 0n)
        out.push({
          check: 'negative_balance',
          coin: a.coin,
          id: a.id,
          detail: { ...name, balance: a.balance },
        })
      if (BigInt(a.held) < 0n || BigInt(a.held) > BigInt(a.balance))
        out.push({
          check: 'held_out_of_range',
          coin: a.coin,
          id: a.id,
          detail: { ...name, balance: a.balance, held: a.held },
        })
    }
    // The cached held amount is what the account's pending holds reserve (each hold positive, on
    // an account that can be held).
    for (const a of await reconcileRepo.heldNotHolds(tx))
      out.push({
        check: 'held_not_holds',
        coin: a.coin,
        id: a.id,
        detail: { kind: a.kind, ownerId: a.ownerId, held: a.held, pending: String(a.pending ?? '0') },
      })
    return out
  })
}

/** The ledger accounts that hold, for a custodial key, what is on chain at its address. */
function accountsAt(key: { address: string; ownerKind: KeyOwnerKind; ownerId: string }) {
  const owners: { kind: LedgerAccountKind; ownerId: string }[] = [
    { kind: OWNER_ACCOUNT[key.ownerKind], ownerId: key.ownerId },
    // platform value parked at the address (gas top-ups)
    { kind: 'treasury', ownerId: key.address },
    // The retired reservation accounts (gas, and a user's transfers not yet mined): migration 0026
    // emptied them into holds; still counted, so that anything left there is not a difference.
    { kind: 'withdrawal_hold', ownerId: `gas:${key.address}` },
  ]
  if (key.ownerKind === 'user') owners.push({ kind: 'withdrawal_hold', ownerId: key.ownerId })
  // (a treasury key's own account may be the one parked at its address: counted once)
  return owners.filter((o, i) => owners.findIndex((p) => p.kind === o.kind && p.ownerId === o.ownerId) === i)
}

/**
 * Compares the chain with the ledger for every custodial address (or `addresses`) and coin, a page
 * of addresses at a time: each page reads the cursor and the ledger on one snapshot, then the
 * chain balances at that cursor block (outside any transaction). An address with a transfer whose
 * effect on chain the ledger cannot show yet is skipped for this time (`skipped`).
 */
export async function compareWithChain(
  db: Db,
  chain: ChainAdapter,
  opts: { addresses?: string[]; pageSize?: number; concurrency?: number } = {},
): Promise<ChainComparison> {
  const chainId = String(chain.chainId)
  const only = opts.addresses?.map((a) => a.toLowerCase())
  const coins = new Map<string, CoinComparison>(
    chain.coins.map((c) => [
      c.reference,
      {
        coin: c.reference,
        ledgerTotal: 0n,
        chainTotal: 0n,
        drift: 0n,
        checked: 0,
        skipped: 0,
        mismatches: [],
      },
    ]),
  )
  const out: ChainComparison = { block: null, coins: [...coins.values()], skipped: [] }
  let after = ''
  let first = true
  for (;;) {
    const page = await snapshot(db, async (tx) => {
      const keys = await reconcileRepo.keysPage(tx, after, opts.pageSize ?? 200, only)
      if (keys.length === 0) return undefined
      const block = (await watcherRepo.cursor(tx, chainId))?.number ?? null
      const addresses = keys.map((k) => k.address)
      const accounts = await reconcileRepo.accountsOf(tx, keys.flatMap(accountsAt))
      const inFlight =
        block === null ? new Set<string>() : await reconcileRepo.inFlight(tx, chainId, addresses, block)
      const parked = await reconcileRepo.parked(tx, chainId, addresses)
      return { keys, block, accounts, inFlight, parked }
    })
    if (!page) return out
    if (first) out.block = page.block
    first = false
    after = page.keys[page.keys.length - 1]!.address
    const balance = new Map(page.accounts.map((a) => [`${a.kind}:${a.ownerId}:${a.coin}`, a.balance]))
    const jobs: (() => Promise<void>)[] = []
    for (const key of page.keys)
      for (const c of coins.values()) {
        const reason = page.inFlight.has(key.address)
          ? 'in_flight'
          : page.parked.has(`${key.address}:${c.coin}`)
            ? 'parked'
            : undefined
        if (reason) {
          c.skipped++
          out.skipped.push({ address: key.address, coin: c.coin, reason })
          continue
        }
        const ledger = accountsAt(key).reduce(
          (sum, o) => sum + (balance.get(`${o.kind}:${o.ownerId}:${c.coin}`) ?? 0n),
          0n,
        )
        jobs.push(async () => {
          const onChain = await chain.balanceOf(key.address, c.coin, page.block ?? undefined)
          c.checked++
          c.ledgerTotal += ledger
          c.chainTotal += onChain
          c.drift += onChain - ledger
          if (onChain !== ledger)
            c.mismatches.push({
              address: key.address,
              ownerKind: key.ownerKind,
              ownerId: key.ownerId,
              coin: c.coin,
              ledger: ledger.toString(),
              chain: onChain.toString(),
              drift: (onChain - ledger).toString(),
            })
        })
      }
    const width = opts.concurrency ?? 8
    for (let i = 0; i < jobs.length; i += width) await Promise.all(jobs.slice(i, i + width).map((j) => j()))
  }
}
