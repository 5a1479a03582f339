// Re-attaching a mined transaction to an outgoing transfer this database never signed it for (a
// restored copy: the platform signed and sent it in a timeline the restore lost). In the caller's
// one transaction the transfer takes the transaction's hash and nonce, the deposit watcher learns
// it is the platform's own, and it settles exactly as `settleWithReceipt` would have settled it:
// its gas out of the platform value at the address, its funding hold posted (the value to the
// chain), and the outcome reported to its caller (a withdrawal's handler then posts its fee hold).
import type { Tx } from '../../../db/index.ts'
import { errors } from '../../../http/errors.ts'
import type { TransferReceipt } from '../../../platform/chain/types.ts'
import { watcherRepo } from '../watcher/repo.ts'
import { TRANSFER_SETTLED } from './events.ts'
import { settleFunding } from './funding.ts'
import { bookGas, gasAccounts, gasVoidKey } from './gas.ts'
import { outgoingRepo } from './repo.ts'
import { attachRepo } from './repo-attach.ts'
import { eventOf, logOf, report } from './report.ts'
import { isFinal, type SenderContext } from './types.ts'

export interface MinedTransaction {
  txHash: string
  nonce: number
  receipt: TransferReceipt
  /** the receipt's details as JSON text (the transfer's `receipt`) */
  receiptText: string
}

/** Settles open transfer `id` as mined by `mined`; answers the ledger transfer of its value. */
export async function attachMined(
  s: SenderContext,
  tx: Tx,
  id: string,
  mined: MinedTransaction,
): Promise<{ valueTransferId: string | null }> {
  const { ledger, clock } = s.deps
  // The address's nonce row before the transfer's, the order a run that signs takes them in.
  const seen = await s.load(tx, id)
  const next = seen ? await outgoingRepo.lockNonce(tx, s.chainKey, seen.fromAddress, clock.now()) : 0
  const row = seen && (await s.load(tx, id, true))
  if (!row || isFinal(row.status))
    throw errors.named('PLATFORM_TRANSFER_MISMATCH', 'The withdrawal’s transfer is settled already')
  if (mined.receipt.status !== 'success')
    throw errors.named('PLATFORM_TRANSFER_MISMATCH', 'The transaction reverted: it paid no withdrawal')
  const now = clock.now()
  const txHash = mined.txHash.toLowerCase()
  if (row.status === 'queued')
    await attachRepo.markSignedElsewhere(tx, id, { nonce: mined.nonce, txHash }, now)
  else if (Number(row.nonce) !== mined.nonce)
    throw errors.named(
      'PLATFORM_TRANSFER_MISMATCH',
      `The transfer was signed at nonce ${row.nonce}; the transaction used nonce ${mined.nonce}`,
    )
  await watcherRepo.registerOwn(
    tx,
    {
      chainId: s.chainKey,
      txHash,
      address: row.fromAddress,
      purpose: row.purpose,
      creditAccountId: row.creditAccountId,
    },
    now,
  )
  // The copy's next nonce for the address moves past the transaction's.
  if (next <= mined.nonce)
    await outgoingRepo.setNextNonce(tx, s.chainKey, row.fromAddress, mined.nonce + 1, now)

  // Gas: a reservation the copy made is posted as the sender would; none made (the copy never got
  // to sign), the gas is taken from the platform value at the address the same way, in one step.
  const fee = mined.receipt.fee
  if (row.fromKind !== 'platform' && BigInt(row.gasReserved) >= fee && row.gasHoldId)
    await bookGas(s, tx, row, fee)
  else if (row.fromKind !== 'platform' && fee > 0n) {
    if (row.gasHoldId) await ledger.void(tx, { hold: row.gasHoldId, key: gasVoidKey(row.id, row.gasHoldId) })
    const acc = await gasAccounts(s, tx, row.fromAddress)
    const spendable = (await ledger.account(tx, acc.treasury, { forUpdate: true }))?.available ?? 0n
    if (spendable < fee)
      throw errors.named(
        'PLATFORM_TRANSFER_GAS_SHORT',
        `The platform value at ${row.fromAddress} (${spendable}) is less than the gas the transaction paid (${fee})`,
        { address: row.fromAddress, available: spendable.toString(), gas: fee.toString() },
      )
    const clearing = await ledger.ensureAccount(tx, 'chain', s.chainKey, acc.native)
    await ledger.transfer(tx, {
      key: `outgoing:${row.id}:gas`,
      coin: acc.native,
      kind: 'gas.spent',
      legs: [
        { account: acc.treasury, amount: -fee },
        { account: clearing, amount: fee },
      ],
    })
  }
  await outgoingRepo.markMined(tx, id, txHash, now)
  const settled = { ...row, txHash, nonce: mined.nonce }
  const { valueTransferId } = await settleFunding(s, tx, settled, 'completed')
  await outgoingRepo.markCompleted(tx, id, mined.receiptText, now)
  await report(s, tx, TRANSFER_SETTLED, {
    ...eventOf(settled),
    txHash,
    gasUsed: mined.receipt.gasUsed.toString(),
    responseData: mined.receiptText,
    valueTransferId,
  })
  s.deps.log.warn(
    {
      ...logOf(row),
      txHash,
      nonce: mined.nonce,
    },
    'outgoing transfer re-attached to a transaction the platform signed before a restore',
  )
  return { valueTransferId }
}
