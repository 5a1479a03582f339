// Unknown platform transfers that left an escrow's address or the fee address: which open record of
// the copy each one paid (an escrow's leg to that destination and amount, the fee address's sweep to
// the coin's cold address), decided from what the copy knows, and the outgoing transfer that the
// mined transaction then settles: the leg's or the sweep's own (the copy queued it, the lost
// timeline sent it), or a sweep recreated as the operator's request records one (the copy never
// had it). Several matches are the operator's choice; none is booked as a loss (losses.ts).
import type { Executor, Tx } from '../../db/index.ts'
import type { PlatformTransferRecordKind } from '../../db/tables/restore.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { type ColdAddresses, FEE_SWEEP_PURPOSE, feeRepo } from '../fees/module.ts'
import { FEE_VAULT_KIND, FEE_VAULT_OWNER } from '../fees/types.ts'
import type { OutgoingSender, PlatformTransferRow } from '../settlement/types.ts'
import { restoreRepo } from './repo.ts'

/** Who paid the transaction, as a re-attach sees it. */
export type Payer = 'user' | 'escrow' | 'fees' | null

export function payerOf(f: Pick<PlatformTransferRow, 'ownerKind' | 'ownerId'>): Payer {
  if (f.ownerKind === 'user') return 'user'
  if (f.ownerKind === 'escrow') return 'escrow'
  if (f.ownerKind === FEE_VAULT_KIND && f.ownerId === FEE_VAULT_OWNER) return 'fees'
  return null
}

/** An open record of the copy that the transaction may have paid. */
export interface Candidate {
  kind: Extract<PlatformTransferRecordKind, 'escrowLeg' | 'feeSweep'>
  id: string
  /** the leg's kind (`payout`, `fee`, `platformFee`, `refund`, `fund`), or `sweep` */
  what: string
  to: string
  amount: string
  /** its outgoing transfer, open in the copy (`queued` unless the copy signed it too) */
  transferId: string
  transferStatus: string
}

/** What a re-attach of the finding does without a record named. */
export interface Match {
  candidates: Candidate[]
  /** `feeSweep`: none is open and the fee address paid the coin's cold address: one is recreated */
  recreates: 'feeSweep' | null
}

const same = (f: PlatformTransferRow, c: { coin: string; toAddress: string; amount: string }) =>
  c.coin === f.coin && c.toAddress.toLowerCase() === f.toAddress && BigInt(c.amount) === BigInt(f.amount)

/**
 * The candidates of each open finding of an escrow or of the fee address among `rows` (two reads
 * for a page), by finding id.
 */
export async function matchesOf(
  ex: Executor,
  cold: ColdAddresses,
  rows: readonly PlatformTransferRow[],
): Promise<Map<string, Match>> {
  const open = rows.filter((r) => r.status === 'open' && r.toAddress !== null && BigInt(r.amount) > 0n)
  const escrows = open.filter((r) => payerOf(r) === 'escrow')
  const fees = open.filter((r) => payerOf(r) === 'fees')
  // (one after the other: `ex` may be a transaction's one connection)
  const legs = await restoreRepo.openLegs(ex, [...new Set(escrows.map((r) => r.ownerId))])
  const sweeps = await restoreRepo.openSweeps(ex, [...new Set(fees.map((r) => r.coin))])
  const out = new Map<string, Match>()
  for (const f of escrows)
    out.set(f.id, {
      recreates: null,
      candidates: legs
        .filter((l) => l.escrowId === f.ownerId && same(f, l))
        .map(
          (l): Candidate => ({
            kind: 'escrowLeg',
            id: l.id,
            what: l.kind,
            to: l.toAddress,
            amount: String(l.amount),
            transferId: l.transferId,
            transferStatus: l.transferStatus,
          }),
        ),
    })
  for (const f of fees) {
    const candidates: Candidate[] = sweeps
      .filter((s) => same(f, s))
      .map(
        (s): Candidate => ({
          kind: 'feeSweep',
          id: s.id,
          what: 'sweep',
          to: s.toAddress,
          amount: String(s.amount),
          transferId: s.transferId,
          transferStatus: s.transferStatus,
        }),
      )
    const coldAddress = cold.of(f.coin)?.address.toLowerCase()
    out.set(f.id, {
      candidates,
      recreates: candidates.length === 0 && coldAddress === f.toAddress ? 'feeSweep' : null,
    })
  }
  return out
}

export interface Named {
  withdrawalId?: string | undefined
  legId?: string | undefined
  sweepId?: string | undefined
}

const mismatch = (message: string) => errors.named('PLATFORM_TRANSFER_MISMATCH', message)

/**
 * In `tx`, the outgoing transfer of the copy that the escrow's or fee address's transaction paid:
 * the record named (one of the finding's candidates), the one candidate, or a sweep recreated;
 * 409 PLATFORM_TRANSFER_AMBIGUOUS for several, 422 PLATFORM_TRANSFER_UNMATCHED for none.
 */
export async function payoutTransfer(
  d: { outgoing: OutgoingSender; cold: ColdAddresses },
  tx: Tx,
  f: PlatformTransferRow,
  named: Named,
  by: string,
  reason: string,
): Promise<{ record: { kind: Candidate['kind']; id: string }; transferId: string; recreated: boolean }> {
  const payer = payerOf(f)
  if (named.withdrawalId)
    throw mismatch('The transaction left an escrow or the fee address: it paid no withdrawal')
  if (payer === 'escrow' && named.sweepId)
    throw mismatch('The transaction left an escrow’s address: name the leg it paid (legId)')
  if (payer === 'fees' && named.legId)
    throw mismatch('The transaction left the fee address: name the sweep it paid (sweepId)')
  const match = (await matchesOf(tx, d.cold, [f])).get(f.id) ?? { candidates: [], recreates: null }
  const id = named.legId ?? named.sweepId
  if (id) {
    const chosen = match.candidates.find((c) => c.id === id)
    if (!chosen)
      throw mismatch(
        `That ${payer === 'escrow' ? 'leg' : 'sweep'} is not open in this database, or does not pay this destination this amount`,
      )
    return { record: { kind: chosen.kind, id: chosen.id }, transferId: chosen.transferId, recreated: false }
  }
  if (match.candidates.length > 1)
    throw errors.named(
      'PLATFORM_TRANSFER_AMBIGUOUS',
      'Several open records pay this destination this amount: name the one the transaction paid',
      { candidates: match.candidates.map((c) => c.id) },
    )
  const only = match.candidates[0]
  if (only) return { record: { kind: only.kind, id: only.id }, transferId: only.transferId, recreated: false }
  if (match.recreates === 'feeSweep') {
    const made = await recreateSweep(d.outgoing, tx, f, by, reason)
    return { record: { kind: 'feeSweep', id: made.sweepId }, transferId: made.transferId, recreated: true }
  }
  throw errors.named(
    'PLATFORM_TRANSFER_UNMATCHED',
    payer === 'escrow'
      ? 'No open leg of this escrow pays this destination this amount: book it as a loss, or mark it external'
      : 'The fee address paid somewhere other than the coin’s cold address: book it as a loss, or mark it external',
  )
}

/**
 * The sweep the lost timeline sent, recorded as the operator's request records one: a hold of its
 * amount on the fee account (422 INSUFFICIENT_BALANCE beyond what can be swept), the sweep, and its
 * transfer funded by the hold, keyed by the transaction (a second re-attach finds them taken).
 */
async function recreateSweep(
  outgoing: OutgoingSender,
  tx: Tx,
  f: PlatformTransferRow,
  by: string,
  reason: string,
) {
  const { ledger, clock } = outgoing.deps
  const amount = BigInt(f.amount)
  const to = f.toAddress!
  const key = `fee-sweep:restore:${f.chainId}:${f.txHash}`
  const account = await ledger.ensureAccount(tx, FEE_VAULT_KIND, FEE_VAULT_OWNER, f.coin)
  const hold = await ledger.hold(tx, {
    key: `${key}:hold`,
    coin: f.coin,
    account,
    amount,
    kind: 'fee.sweep',
    description: `Fee sweep to ${to} re-attached to ${f.txHash}`,
  })
  const sweepId = newId()
  const now = clock.now()
  await feeRepo.insert(tx, {
    id: sweepId,
    coin: f.coin,
    amount: amount.toString(),
    fromAddress: f.address,
    toAddress: to,
    holdId: hold.id,
    requestedBy: by,
    reason,
    requestKey: null,
    createdAt: now,
    updatedAt: now,
  })
  const sent = await outgoing.enqueue(tx, {
    purpose: FEE_SWEEP_PURPOSE,
    referenceId: sweepId,
    key,
    from: { kind: FEE_VAULT_KIND, ownerId: FEE_VAULT_OWNER },
    coin: f.coin,
    to,
    amount,
    fundingHoldId: hold.id,
  })
  await feeRepo.update(tx, sweepId, { outgoingId: sent.id })
  return { sweepId, transferId: sent.id }
}
