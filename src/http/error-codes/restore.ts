// Codes of restores meeting the chain: re-attaching the platform's own transactions a restored
// database did not know, and the jobs a restore parked for review.
import { code } from './define.ts'

export const RESTORE_CODES = {
  PLATFORM_TRANSFER_RESOLVED: code(
    409,
    'The unknown platform transfer was re-attached, marked external or booked as a loss already.',
    'Reload the finding; nothing more is needed for it.',
  ),
  PLATFORM_TRANSFER_MISMATCH: code(
    422,
    'The withdrawal, escrow leg or fee sweep named does not match the transaction (its owner, coin, destination or amount), or it is no longer open.',
    'Pick one of the finding’s `candidates` (the record the transaction paid), or re-attach without one.',
  ),
  PLATFORM_TRANSFER_AMBIGUOUS: code(
    409,
    'Several open records of the database (escrow legs or fee sweeps, in `data.candidates`) match the transaction’s destination and amount: which one it paid is the operator’s choice.',
    'Re-attach with `legId` (or `sweepId`) naming one of `data.candidates`.',
  ),
  PLATFORM_TRANSFER_UNMATCHED: code(
    422,
    'No open record of the database matches the transaction: no open leg of the escrow pays that destination that amount, or the fee address paid somewhere other than the coin’s cold address.',
    'Book it as a loss (POST /v1/admin/platform-transfers/{id}/loss) and settle the escrow or the fees by hand, or mark it external.',
  ),
  PLATFORM_TRANSFER_LOSS_REFUSED: code(
    422,
    'Only a transaction that moved value from an escrow or fee address and that no open record matches is booked as a loss: a user address’s transaction is re-attached as the withdrawal it paid or marked external, so the user is never debited without a record; one that an open escrow leg or fee sweep matches (or that a sweep to the cold address would recreate) is re-attached, so that the record is not sent a second time.',
    'Re-attach it (naming the leg or sweep when several match), or mark it external.',
  ),
  PLATFORM_TRANSFER_MATCHES_OPEN_WITHDRAWAL: code(
    409,
    'Re-attached without naming a withdrawal, but the database holds an open withdrawal of the same owner, coin, destination and amount (`data.withdrawalIds`): recreating one beside it would leave that one to be paid again.',
    'Re-attach with `withdrawalId` naming the open withdrawal the transaction paid.',
  ),
  PLATFORM_TRANSFER_NOT_A_WITHDRAWAL: code(
    422,
    'The transaction moved no value, or left a platform address that pays neither withdrawals, escrow legs nor fee sweeps.',
    'Mark it external, or book it by hand as the runbook says.',
  ),
  PLATFORM_TRANSFER_GAS_SHORT: code(
    422,
    'The platform value at the sending address is less than the gas the transaction paid (its gas top-up is unknown to this database too).',
    'Re-attach the gas top-up first (credit the address’s treasury account), then try again.',
  ),
  PLATFORM_TRANSFERS_OPEN: code(
    409,
    'The coin has unknown platform transfers still open (`data.open`): resumed, the value they moved, still counted in the ledger, could be paid out again.',
    'Re-attach each open finding, book it as a loss or mark it external (GET /v1/admin/platform-transfers?status=open), then resume the coin.',
  ),
  PARKED_TRANSFER_NONCES_AHEAD: code(
    409,
    'The parked transfer’s sending address has transactions mined on chain that this database does not know (a restore lost them): it may be the very transfer already paid.',
    'Let the deposit watcher read the chain, re-attach each unknown platform transfer (or mark it external), then release it.',
  ),
  JOB_NOT_PARKED: code(
    409,
    'The job is not parked (released or dropped already, or never parked).',
    'Reload the list of parked jobs.',
  ),
  PARKED_TRANSFER_NOT_DROPPABLE: code(
    409,
    'A parked outgoing transfer is not dropped: its hold would stay reserved with nothing to resolve it.',
    'Release it, or cancel the transfer (POST /v1/admin/transfers/{id}/cancel), which gives its value back.',
  ),
} as const
