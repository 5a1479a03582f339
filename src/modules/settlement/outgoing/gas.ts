// Gas is always the platform's. A transfer from a custodial address reserves its most possible
// gas cost (gas × maxFeePerGas) of native coin with a ledger hold on the `treasury` account of
// that address (platform value parked there), linked to the transfer (`gas_hold_id`); a
// replacement with higher fees voids it and holds the larger amount in the same transaction. When
// the transfer settles the hold is posted for the gas used (to the chain's clearing account, the
// rest released) or voided when nothing was mined. When the parked value is short, the gas wallet
// sends the address a top-up (one open top-up per address, covering every transfer queued there
// without gas) and the transfer waits for its credit.
import type { Executor, Tx } from '../../../db/index.ts'
import { ChainError } from '../../../platform/chain/types.ts'
import { enqueueTransfer } from './enqueue.ts'
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from './fee-quote.ts'
import { lockAddress } from './nonces.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { startIn } from './report.ts'
import { GAS_TOPUP_PURPOSE, isFinal, type RunState, type SenderContext } from './types.ts'

/** The idempotency key of the void of a transfer's gas hold (one per hold: a replacement voids the
 * smaller one and holds anew). */
export const gasVoidKey = (transferId: string, holdId: string) => `outgoing:${transferId}:gas-void:${holdId}`

/** The account of the platform's gas at a sending address (holds reserve what transfers need). */
export async function gasAccounts(s: SenderContext, ex: Executor, address: string, ids?: AccountIds) {
  const native = nativeCoin(s)
  const treasury = ids
    ? await ids.of('treasury', address, native)
    : await s.deps.ledger.ensureAccount(ex, 'treasury', address, native)
  return { native, treasury }
}

/**
 * The ledger accounts one transaction of the sender books to: an id the sender has kept is used as
 * it is; another is asked of the ledger (made when missing) and kept once the transaction
 * committed (`keep`), never before: a rolled-back transaction may have made an account that is
 * gone with it.
 */
export class AccountIds {
  readonly #found = new Map<string, string>()
  constructor(
    readonly s: SenderContext,
    readonly ex: Executor,
  ) {}

  async of(kind: 'treasury' | 'chain', ownerId: string, coin: string): Promise<string> {
    const key = `${kind}:${ownerId}:${coin}`
    const known = this.s.accountIds.get(key) ?? this.#found.get(key)
    if (known) return known
    const id = await this.s.deps.ledger.ensureAccount(this.ex, kind, ownerId, coin)
    this.#found.set(key, id)
    return id
  }

  /** The chain's clearing account of `coin`. */
  clearing = (coin: string) => this.of('chain', this.s.chainKey, coin)

  /** Keeps the ids found, after the transaction that found them committed. */
  keep() {
    for (const [k, v] of this.#found) this.s.accountIds.set(k, v)
  }
}

function nativeCoin(s: SenderContext): string {
  const native = s.deps.chain.coins.find((c) => !c.isToken)
  if (!native) throw new Error('the chain has no native coin configured')
  return native.reference
}

/** `ok`: reserved (`hold`: the new hold, still to be linked to the transfer by the caller);
 * `wait`: a top-up is on its way; `scan`: it landed, the watcher has not credited it yet;
 * `topup-failed`: the last top-up failed (another was asked for). */
export type Reservation =
  | { result: 'ok'; hold?: { reserved: bigint; holdId: string } }
  | { result: 'wait' | 'scan' | 'topup-failed' }

/**
 * Reserves `maxFee` of native coin for the transfer's gas (what is reserved already counts), in a
 * transaction of its own: before signing, or (`signed`) before signing a replacement with higher
 * fees. `ok`: reserved. When short, asks the gas wallet for a top-up and answers `wait` (the
 * top-up's settlement wakes the transfer); `scan`: the top-up landed and the watcher is asked to
 * credit it. Throws when the last top-up failed (a failed attempt of the transfer).
 */
export async function reserveGas(
  s: SenderContext,
  row: OutgoingRow,
  maxFee: bigint,
  opts: { gas?: bigint; signed?: boolean; run?: RunState } = {},
): Promise<'ok' | 'wait' | 'scan'> {
  const { db, clock } = s.deps
  let ids: AccountIds | undefined
  let started = false
  const reserving = () =>
    db.transaction().execute(async (tx): Promise<Reservation> => {
      ids = new AccountIds(s, tx)
      started = false
      await lockAddress(s, tx, row.fromAddress)
      const current = await s.load(tx, row.id, true)
      // Before signing; or, for a replacement, while the signed transfer is still open.
      const reservable = opts.signed
        ? current?.status === 'signed' || current?.status === 'sent'
        : current?.status === 'queued'
      if (!current || !reservable) return { result: 'ok' }
      if (opts.run?.start) {
        await startIn(s, tx, current)
        started = true
      }
      const gas = opts.gas ?? BigInt(current.gasLimit ?? 0)
      const reserved = await reserveLocked(s, tx, current, maxFee, gas, ids)
      if (reserved.result === 'ok' && reserved.hold)
        await outgoingRepo.setGasReserved(
          tx,
          row.id,
          reserved.hold.reserved,
          reserved.hold.holdId,
          clock.now(),
        )
      return reserved
    })
  // The address's turn in this process, then its nonce row: gas decisions of one address in turn.
  const r = await s.turns.run(row.fromAddress.toLowerCase(), reserving)
  ids?.keep()
  if (started) opts.run!.start = false
  return settleReservation(s, r)
}

/** What a reservation that is not `ok` means for the run: a scan asked for, or a failed attempt. */
export async function settleReservation(s: SenderContext, r: Reservation): Promise<'ok' | 'wait' | 'scan'> {
  // The top-up landed but the watcher has not credited it yet: ask for a scan, and wait.
  if (r.result === 'scan') await s.deps.watcher.requestScan()
  if (r.result === 'topup-failed')
    throw new ChainError('UNAVAILABLE', 'the gas top-up of the sending address failed; another was requested')
  return r.result
}

/**
 * Reserves `maxFee` for `current` (locked in `tx`, its address's nonce row locked first). A larger
 * reservation replaces the smaller one (voided); the new hold is answered for the caller to link.
 * When the platform value parked at the address is short, asks the gas wallet for ONE top-up that
 * covers every queued transfer of the address still without gas (see `topUpAmount`).
 */
export async function reserveLocked(
  s: SenderContext,
  tx: Tx,
  current: OutgoingRow,
  maxFee: bigint,
  gas: bigint,
  ids?: AccountIds,
): Promise<Reservation> {
  const { ledger, log } = s.deps
  const reserved = BigInt(current.gasReserved)
  if (reserved >= maxFee) return { result: 'ok' }
  const need = maxFee - reserved
  const acc = await gasAccounts(s, tx, current.fromAddress, ids)
  const spendable = (await ledger.account(tx, acc.treasury, { forUpdate: true }))?.available ?? 0n
  if (spendable >= need) {
    // One hold per transfer: a larger reservation replaces the smaller one.
    if (current.gasHoldId)
      await ledger.void(tx, { hold: current.gasHoldId, key: gasVoidKey(current.id, current.gasHoldId) })
    // The row is locked and covers the hold: one statement writes it (`ledger_write_holds`).
    const held = await ledger.holdMany(tx, {
      kind: 'treasury',
      ownerId: current.fromAddress,
      coin: acc.native,
      holds: [
        {
          key: `outgoing:${current.id}:gas-hold:${maxFee}`,
          amount: maxFee,
          kind: 'gas',
          description: `Gas of outgoing transfer ${current.id}`,
        },
      ],
    })
    return { result: 'ok', hold: { reserved: maxFee, holdId: held.holds[0]!.id } }
  }
  const topUps = await outgoingRepo.topUpsTo(tx, s.chainKey, current.fromAddress, GAS_TOPUP_PURPOSE)
  const open = topUps[0]
  if (open && !isFinal(open.status)) return { result: 'wait' }
  if (open?.status === 'completed' && open.txHash) {
    if (!(await s.deps.watcher.reports.credited(tx, open.txHash))) return { result: 'scan' }
  }
  // After a failed top-up (the gas wallet may not hold what a whole queue needs), the next one
  // brings what this transfer needs only, so the queue still moves a few transfers at a time.
  const queued =
    open?.status === 'failed'
      ? []
      : await outgoingRepo.queuedWithoutGas(tx, s.chainKey, current.fromAddress, current.id)
  const amount = topUpAmount(s, { coin: current.coin, gas, maxFee, need, spendable, queued })
  const topUp = await enqueueTransfer(s, tx, {
    purpose: GAS_TOPUP_PURPOSE,
    referenceId: current.fromAddress,
    key: `gas-topup:${s.chainKey}:${current.fromAddress}:${topUps.length}`,
    from: { kind: 'platform', signer: 'gasWallet' },
    coin: acc.native,
    to: current.fromAddress,
    amount,
    creditAccountId: acc.treasury,
    meta: { for: current.id, queued: queued.reduce((n, q) => n + Number(q.n), 1) },
  })
  log.info(
    {
      transferId: topUp.id,
      for: current.id,
      address: current.fromAddress,
      coin: acc.native,
      amount: amount.toString(),
      queued: queued.reduce((n, q) => n + Number(q.n), 1),
    },
    'gas top-up requested',
  )
  // A failed top-up counts as a failed attempt of the transfer that waits for it.
  return { result: open?.status === 'failed' ? 'topup-failed' : 'wait' }
}

/**
 * What one top-up brings an address: the gas of every transfer queued there without gas yet (this
 * one's `maxFee`, each other of the same coin the same per gas and gas, each of another coin its
 * planned gas at this one's price per gas), less what is parked there already, plus headroom of
 * `topUpFactor − 1` times this transfer's gas, so that fees rising a little before the last of
 * them signs, or a few more transfers, need no second top-up. A lone transfer gets `topUpFactor` ×
 * its missing gas, as before.
 */
export function topUpAmount(
  s: SenderContext,
  a: {
    /** this transfer's coin, gas limit and most gas cost, and what it misses of it */
    coin: string
    gas: bigint
    maxFee: bigint
    need: bigint
    /** what is parked at the address beside the holds already taken */
    spendable: bigint
    queued: { coin: string; n: number | string }[]
  },
): bigint {
  const { chain } = s.deps
  const perGas = a.gas > 0n ? a.maxFee / a.gas : 0n
  let total = a.maxFee
  for (const q of a.queued) {
    const isToken = chain.coins.find((x) => x.reference === q.coin)?.isToken ?? true
    const each = q.coin === a.coin ? a.maxFee : (isToken ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * perGas
    total += BigInt(q.n) * each
  }
  const lone = a.need * s.options.topUpFactor
  const batched = total - a.spendable + a.maxFee * (s.options.topUpFactor - 1n)
  return batched > lone ? batched : lone
}

/** Books the gas a mined transaction used (0 when nothing was mined): the gas hold posted for
 * it (the rest released), or voided. */
export async function bookGas(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  used: bigint,
  clearingOf: (coin: string) => Promise<string> = (coin) =>
    s.deps.ledger.ensureAccount(tx, 'chain', s.chainKey, coin),
) {
  const reserved = BigInt(row.gasReserved)
  if (row.fromKind === 'platform' || reserved === 0n || !row.gasHoldId) return
  const { ledger, log } = s.deps
  const spent = used < reserved ? used : reserved
  if (spent > 0n) {
    const clearing = await clearingOf(nativeCoin(s))
    await ledger.post(tx, {
      hold: row.gasHoldId,
      to: [{ account: clearing, amount: spent }],
      key: `outgoing:${row.id}:gas`,
      kind: 'gas.spent',
    })
  } else await ledger.void(tx, { hold: row.gasHoldId, key: gasVoidKey(row.id, row.gasHoldId) })
  if (used > reserved)
    log.error(
      { transferId: row.id, used: used.toString(), reserved: reserved.toString() },
      'gas used exceeds the reservation',
    )
}
