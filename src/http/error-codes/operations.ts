// Codes of operator actions on money: coins, fee sweeps, halts, outgoing transfers and reorg findings.
import { code } from './define.ts'

export const OPERATION_CODES = {
  WITHDRAWAL_BELOW_MINIMUM: code(
    422,
    'The amount is below the smallest withdrawal of the coin (its network fee; `data.minimum`). Answered as `data.reason` beside `data.code` BUSINESS_RULE, which the API contract fixes for this case.',
    'Withdraw at least `data.minimum`.',
  ),
  COIN_RATE_REQUIRED: code(
    422,
    'An active coin needs a USD rate when no price feed is configured.',
    'Set a rate first, or keep the coin inactive.',
  ),
  NATIVE_COIN_REQUIRED: code(
    409,
    'The native coin pays the gas of every transfer: it cannot be deactivated.',
    'Do not retry.',
  ),
  COIN_ALREADY_IN_STATE: code(409, 'The coin is active (or inactive, or halted) already.', 'Nothing to do.'),
  COIN_EXISTS: code(
    409,
    'A coin has this reference, symbol or contract already.',
    'Choose another symbol or reference, or edit that coin.',
  ),
  CONTRACT_NOT_FOUND: code(
    422,
    'No contract is deployed at the address on the chain.',
    'Check the address and the chain.',
  ),
  CONTRACT_NOT_ERC20: code(422, 'The contract at the address is not an ERC-20 token.', 'Check the address.'),
  TOKEN_DECIMALS_UNSUPPORTED: code(
    422,
    'The token has more than 36 decimals.',
    'Such a token cannot be added.',
  ),
  TOKEN_DECIMALS_MISMATCH: code(
    422,
    'The `decimals` sent differ from what the contract says; `data.decimals` is the contract’s.',
    'Send the contract’s decimals, or none.',
  ),
  NO_COLD_ADDRESS: code(
    422,
    'No cold address is configured for the coin’s fee sweeps.',
    'Set FEE_SWEEP_ADDRESS or FEE_SWEEP_ADDRESS_<COIN>.',
  ),
  COLD_ADDRESS_REFUSED: code(
    422,
    'The cold address is an address of the platform’s own (custodial, fee, treasury, gas wallet, token contract).',
    'Configure an address outside the platform.',
  ),
  HALTED_COIN_REFUSED: code(
    409,
    'The coin is halted by settlement: an operator’s sweep, retry or replacement is refused until it is resumed.',
    'Resume the coin first.',
  ),
  SWEEP_IN_FLIGHT: code(
    409,
    'A sweep of the coin is not settled yet; `data.sweepId` names it.',
    'Wait until it is confirmed or failed.',
  ),
  TRANSFER_NOT_OPEN: code(
    409,
    'The outgoing transfer is settled (or cancelled) already, or has none yet.',
    'Reload it; nothing is to be done.',
  ),
  TRANSFER_NOT_STUCK: code(
    409,
    'The transfer is not stuck: its nonce is in use, it was replaced or settled meanwhile, or it waits for gas.',
    'Wait; the message says what it waits for.',
  ),
  TRANSFER_AWAITS_GAS: code(
    409,
    'The higher fees need more gas at the sending address: a top-up was requested.',
    'Wait for the top-up, then replace again.',
  ),
  TRANSFER_ALREADY_SIGNED: code(
    409,
    'The transfer is signed and may still be mined: it cannot be cancelled.',
    'Replace it, or wait for the chain.',
  ),
  TRANSFER_REPLACE_LIMIT: code(
    409,
    'The transfer was replaced the most times allowed, or its fees are at the cap.',
    'Cancel it, or raise the cap.',
  ),
  FINDING_RESOLVED: code(
    409,
    'The reorganisation finding is reversed or kept already.',
    'Reload it; nothing is to be done.',
  ),
  DEPOSIT_RECORDED_AGAIN: code(
    409,
    'The deposit was mined again and the watcher recorded it anew: keeping the finding would count it twice.',
    'Reverse the finding instead.',
  ),
  DEPOSIT_NOT_CANONICAL: code(
    409,
    'The deposit is not on the canonical chain with its confirmations, so the finding cannot be kept.',
    'Reverse it instead, or wait for the confirmations.',
  ),
} as const
