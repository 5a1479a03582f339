// An unknown platform transfer from an escrow's address or the fee address that no open record of
// the copy matches, booked as a loss on the operator's word: in the caller's transaction, the value
// it moved out of the address owner's account (the escrow's, the fee account) to the chain, and its
// gas out of the platform's gas at the address (its lost top-ups booked first), each under a key of
// the transaction; its parked movements are taken out of the parking as accounted for, and the
// copy's next nonce for the address moves past it. What the escrow or the fees owe is then settled
// by hand (docs/operations.md).
import type { Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { OpenAccountKind } from '../ledger/types.ts'
import { findingsRepo } from '../settlement/module.ts'
import type { OutgoingSender, PlatformTransferRow } from '../settlement/types.ts'
import { type Match, payerOf } from './payouts.ts'

/** Refused before anything is written: only escrow and fee addresses' value is booked as a loss. */
export function assertLossAllowed(f: PlatformTransferRow, match?: Match) {
  const payer = payerOf(f)
  if (payer === 'user' || payer === null)
    throw errors.named(
      'PLATFORM_TRANSFER_LOSS_REFUSED',
      'Only a transaction from an escrow or the fee address is booked as a loss: re-attach a user address’s transaction as its withdrawal, or mark it external',
    )
  if (BigInt(f.amount) <= 0n || f.toAddress === null)
    throw errors.named('PLATFORM_TRANSFER_LOSS_REFUSED', 'The transaction moved no value: mark it external')
  // An open leg or sweep that it paid would otherwise be sent again once the coin resumes.
  if (match && (match.candidates.length > 0 || match.recreates !== null))
    throw errors.named(
      'PLATFORM_TRANSFER_LOSS_REFUSED',
      match.candidates.length > 0
        ? 'An open escrow leg or fee sweep of the copy matches this transaction: re-attach it to that record instead'
        : 'This transaction is a sweep to the coin’s cold address: re-attach it (the sweep is recreated) instead',
    )
}

/** Books the loss in `tx`; answers the ledger transfer of its value (null: it moved none). */
export async function bookLoss(
  outgoing: OutgoingSender,
  tx: Tx,
  f: PlatformTransferRow,
  nonce: number,
): Promise<{ valueTransferId: string | null }> {
  assertLossAllowed(f)
  const { ledger, clock } = outgoing.deps
  const chainKey = f.chainId
  const key = `restore:${chainKey}:${f.txHash}`
  let valueTransferId: string | null = null
  const amount = BigInt(f.amount)
  if (amount > 0n) {
    const account = await ledger.ensureAccount(tx, f.ownerKind as OpenAccountKind, f.ownerId, f.coin)
    const available = (await ledger.account(tx, account, { forUpdate: true }))?.available ?? 0n
    if (available < amount)
      throw errors.insufficientBalance(
        `The ${f.ownerKind === 'escrow' ? 'escrow’s' : 'fee'} account holds ${available} available, less than the ${amount} the transaction moved (open legs or sweeps reserve the rest: cancel them first)`,
      )
    const clearing = await ledger.ensureAccount(tx, 'chain', chainKey, f.coin)
    valueTransferId = (
      await ledger.transfer(tx, {
        key: `${key}:loss`,
        coin: f.coin,
        kind: 'restore.loss',
        description: `Value of ${f.txHash}, sent in a timeline a restore lost, booked as a loss`,
        legs: [
          { account, amount: -amount },
          { account: clearing, amount },
        ],
      })
    ).id
  }
  const gas = BigInt(f.gasFee)
  if (gas > 0n && f.gasCoin) {
    const treasury = await ledger.ensureAccount(tx, 'treasury', f.address, f.gasCoin)
    const spendable = (await ledger.account(tx, treasury, { forUpdate: true }))?.available ?? 0n
    if (spendable < gas)
      throw errors.named(
        'PLATFORM_TRANSFER_GAS_SHORT',
        `The platform value at ${f.address} (${spendable}) is less than the gas the transaction paid (${gas})`,
        { address: f.address, available: spendable.toString(), gas: gas.toString() },
      )
    const clearing = await ledger.ensureAccount(tx, 'chain', chainKey, f.gasCoin)
    await ledger.transfer(tx, {
      key: `${key}:gas`,
      coin: f.gasCoin,
      kind: 'gas.spent',
      legs: [
        { account: treasury, amount: -gas },
        { account: clearing, amount: gas },
      ],
    })
  }
  await findingsRepo.moveNoncePast(tx, chainKey, f.address, nonce, clock.now())
  await findingsRepo.settleParked(tx, chainKey, f.txHash, f.address, valueTransferId)
  return { valueTransferId }
}
