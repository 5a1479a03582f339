// Gas is always the platform's. A transfer from a custodial address reserves its most possible
// gas cost (gas × maxFeePerGas) of native coin with a ledger hold on the `treasury` account of
// that address (platform value parked there), linked to the transfer (`gas_hold_id`); a
// replacement with higher fees voids it and holds the larger amount in the same transaction. When
// the transfer settles the hold is posted for the gas used (to the chain's clearing account, the
// rest released) or voided when nothing was mined. When the parked value is short, the gas wallet
// sends the address a top-up (one open top-up per address) and the transfer waits for its credit.
import type { Executor, Tx } from '../../../db/index.ts'
import { ChainError } from '../../../platform/chain/types.ts'
import { enqueueTransfer } from './enqueue.ts'
import { lockAddress } from './nonces.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { GAS_TOPUP_PURPOSE, isFinal, type SenderContext } from './types.ts'

/** The idempotency key of the void of a transfer's gas hold (one per hold: a replacement voids the
 * smaller one and holds anew). */
export const gasVoidKey = (transferId: string, holdId: string) => `outgoing:${transferId}:gas-void:${holdId}`

/** The account of the platform's gas at a sending address (holds reserve what transfers need). */
export async function gasAccounts(s: SenderContext, ex: Executor, address: string) {
  const native = nativeCoin(s)
  return { native, treasury: await s.deps.ledger.ensureAccount(ex, 'treasury', address, native) }
}

function nativeCoin(s: SenderContext): string {
  const native = s.deps.chain.coins.find((c) => !c.isToken)
  if (!native) throw new Error('the chain has no native coin configured')
  return native.reference
}

type ReserveResult = 'ok' | 'wait' | 'scan' | 'topup-failed'

/**
 * Reserves `maxFee` of native coin for the transfer's gas (what is reserved already counts):
 * before signing, or (`signed`) before signing a replacement with higher fees.
 * When short, asks the gas wallet for a top-up and answers false: the transfer waits for the
 * watcher to credit it. Throws when the last top-up failed (a failed attempt of the transfer).
 */
export async function reserveGas(
  s: SenderContext,
  row: OutgoingRow,
  maxFee: bigint,
  opts: { signed?: boolean } = {},
): Promise<boolean> {
  const result = await reserveOnce(s, row, maxFee, opts.signed ?? false)
  // The top-up landed but the watcher has not credited it yet: ask for a scan, and wait.
  if (result === 'scan') await s.deps.watcher.requestScan()
  if (result === 'topup-failed')
    throw new ChainError('UNAVAILABLE', 'the gas top-up of the sending address failed; another was requested')
  return result === 'ok'
}

function reserveOnce(
  s: SenderContext,
  row: OutgoingRow,
  maxFee: bigint,
  signed: boolean,
): Promise<ReserveResult> {
  const { db, ledger, clock, log } = s.deps
  return db.transaction().execute(async (tx): Promise<ReserveResult> => {
    // The address's nonce row serialises gas decisions of one address.
    await lockAddress(s, tx, row.fromAddress)
    const current = await s.load(tx, row.id, true)
    // Before signing; or, for a replacement, while the signed transfer is still open.
    const reservable = signed
      ? current?.status === 'signed' || current?.status === 'sent'
      : current?.status === 'queued'
    if (!current || !reservable) return 'ok'
    const reserved = BigInt(current.gasReserved)
    if (reserved >= maxFee) return 'ok'
    const need = maxFee - reserved
    const acc = await gasAccounts(s, tx, row.fromAddress)
    const spendable = (await ledger.account(tx, acc.treasury, { forUpdate: true }))?.available ?? 0n
    if (spendable >= need) {
      // One hold per transfer: a larger reservation replaces the smaller one.
      if (current.gasHoldId)
        await ledger.void(tx, { hold: current.gasHoldId, key: gasVoidKey(row.id, current.gasHoldId) })
      const hold = await ledger.hold(tx, {
        key: `outgoing:${row.id}:gas-hold:${maxFee}`,
        coin: acc.native,
        account: acc.treasury,
        amount: maxFee,
        kind: 'gas',
        description: `Gas of outgoing transfer ${row.id}`,
      })
      await outgoingRepo.setGasReserved(tx, row.id, maxFee, hold.id, clock.now())
      return 'ok'
    }
    const topUps = await outgoingRepo.topUpsTo(tx, s.chainKey, row.fromAddress, GAS_TOPUP_PURPOSE)
    const open = topUps[0]
    if (open && !isFinal(open.status)) return 'wait'
    if (open?.status === 'completed' && open.txHash) {
      if (!(await s.deps.watcher.reports.credited(tx, open.txHash))) return 'scan'
    }
    const amount = need * s.options.topUpFactor
    const topUp = await enqueueTransfer(s, tx, {
      purpose: GAS_TOPUP_PURPOSE,
      referenceId: row.fromAddress,
      key: `gas-topup:${s.chainKey}:${row.fromAddress}:${topUps.length}`,
      from: { kind: 'platform', signer: 'gasWallet' },
      coin: acc.native,
      to: row.fromAddress,
      amount,
      creditAccountId: acc.treasury,
      meta: { for: row.id },
    })
    log.info(
      {
        transferId: topUp.id,
        for: row.id,
        address: row.fromAddress,
        coin: acc.native,
        amount: amount.toString(),
      },
      'gas top-up requested',
    )
    // A failed top-up counts as a failed attempt of the transfer that waits for it.
    return open?.status === 'failed' ? 'topup-failed' : 'wait'
  })
}

/** Books the gas a mined transaction used (0 when nothing was mined): the gas hold posted for
 * it (the rest released), or voided. */
export async function bookGas(s: SenderContext, tx: Tx, row: OutgoingRow, used: bigint) {
  const reserved = BigInt(row.gasReserved)
  if (row.fromKind === 'platform' || reserved === 0n || !row.gasHoldId) return
  const { ledger, log } = s.deps
  const spent = used < reserved ? used : reserved
  if (spent > 0n) {
    const clearing = await ledger.ensureAccount(tx, 'chain', s.chainKey, nativeCoin(s))
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
