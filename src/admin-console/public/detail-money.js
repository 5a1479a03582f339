// @ts-check
// Money pages: an outgoing transfer (its transactions, the replacements among them, failures,
// postings and reports), a withdrawal (its user, transfer and transaction), and an escrow with its
// payout legs. Each links to the records it names and to the chain's explorer.
import { get } from './api.js'
import { copyable } from './copy.js'
import { detailPage, facts, section, state } from './detail-common.js'
import { h } from './dom.js'
import { age, amount, time } from './format.js'
import { detailLink, txLink, userLink } from './links.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminTransferDetail} AdminTransferDetail */
/** @typedef {import('../../../clients/typescript/index.ts').AdminWithdrawal} AdminWithdrawal */
/** @typedef {import('../../../clients/typescript/index.ts').AdminEscrow} AdminEscrow */
/** @typedef {import('../../../clients/typescript/index.ts').AdminEscrowLeg} AdminEscrowLeg */

/** What a transfer was sent for: a link to its withdrawal or escrow, where the console has one. */
async function referenceOf(t) {
  if (t.purpose === 'withdrawal') return detailLink('withdrawal', t.referenceId)
  if (t.purpose === 'escrow.pay') return detailLink('escrow', t.referenceId)
  if (t.purpose === 'escrow.leg') {
    try {
      /** @type {AdminEscrowLeg} */
      const leg = await get(`/v1/admin/escrow-legs/${t.referenceId}`)
      return h('span', {}, `leg ${leg.kind} #${leg.seq} of escrow `, detailLink('escrow', leg.escrowId))
    } catch {
      return copyable(t.referenceId)
    }
  }
  return copyable(t.referenceId)
}

/** @param {HTMLElement} main @param {string} id */
export function renderTransfer(main, id) {
  return detailPage(
    main,
    `Transfer ${id}`,
    async () => {
      /** @type {AdminTransferDetail} */
      const t = await get(`/v1/admin/transfers/${id}`)
      return { t, reference: await referenceOf(t) }
    },
    ({ t, reference }) => [
      facts([
        ['Purpose', t.purpose],
        ['For', reference],
        ['Amount', t.amountText],
        ['From', copyable(t.from)],
        ['To', copyable(t.to)],
        ['State', state(t.status)],
        ['Nonce', t.nonce ?? null],
        ['Transaction', txLink(t.txHash, { n: 66 })],
        ['Replacements', String(t.replacements)],
        ['Gas reserved (base units of the native coin)', t.gasReserved],
        [
          'Waiting for the fee',
          t.waitingForFee
            ? `${t.waitingForFee.feePerGas} > ${t.waitingForFee.maxFeePerGas} wei per gas (${t.waitingForFee.step})`
            : undefined,
        ],
        ['Failed tries', `${t.failures} counted / ${t.attempts} recorded`],
        ['Outcome', t.error ? JSON.stringify(t.error) : undefined],
        ['Age', age(t.ageSeconds)],
        ['Created', time(t.createdAt)],
        ['Signed', time(t.signedAt)],
        ['Broadcast', time(t.broadcastAt)],
        ['Settled', time(t.settledAt)],
      ]),
      section(
        'Transactions (the first, then each replacement at the same nonce)',
        [
          ['#', (x) => String(x.seq)],
          ['Hash', (x) => txLink(x.txHash, { n: 18 })],
          ['State', (x) => state(x.status)],
          ['Max fee per gas (wei)', (x) => x.maxFee],
          ['Signed', (x) => time(x.signedAt)],
        ],
        t.transactions,
      ),
      section('Failed attempts', [['Error', (e) => e]], t.errors),
      section(
        'Postings',
        [
          ['Outcome', (p) => p.outcome],
          ['Kind', (p) => p.kind],
          ['Account', (p) => p.account],
          ['Amount', (p) => amount(p.amount, t.coin)],
          ['Ledger transfer', (p) => (p.ledgerTransferId ? copyable(p.ledgerTransferId) : 'not booked')],
        ],
        t.postings,
      ),
      section(
        'Reports to the caller',
        [
          ['Event', (e) => e.event],
          ['Applied', (e) => time(e.appliedAt)],
        ],
        t.events,
      ),
    ],
  )
}

/** @param {HTMLElement} main @param {string} id */
export function renderWithdrawal(main, id) {
  return detailPage(
    main,
    `Withdrawal ${id}`,
    () => /** @type {Promise<AdminWithdrawal>} */ (get(`/v1/admin/withdrawals/${id}`)),
    (w) => [
      facts([
        ['User', userLink(w.userId, w.email)],
        ['Amount', w.amountText],
        ['Fee', amount(w.fee, w.coin)],
        ['To', copyable(w.address)],
        ['State', state(w.status)],
        ['Transfer', detailLink('transfer', w.transferId)],
        ['Transfer state', w.transferStatus ? state(w.transferStatus) : null],
        ['Transaction', txLink(w.txHash, { n: 66 })],
        ['Attempts', String(w.retryCount)],
        ['Last error', w.lastError],
        ['Age', age(w.ageSeconds)],
        ['Requested', time(w.createdAt)],
        ['Updated', time(w.updatedAt)],
      ]),
      h(
        'p',
        {},
        h('a', { href: `#/withdrawals?user=${w.userId}` }, 'This user’s withdrawals (with their actions)'),
      ),
    ],
  )
}

/** @param {HTMLElement} main @param {string} id */
export function renderEscrow(main, id) {
  return detailPage(
    main,
    `Escrow ${id}`,
    () => /** @type {Promise<AdminEscrow>} */ (get(`/v1/admin/escrows/${id}`)),
    (e) => [
      facts([
        ['Job', detailLink('job', e.collectionId)],
        ['Payer', userLink(e.payerId, e.payerEmail)],
        ['Receiver', e.receiverId ? userLink(e.receiverId, e.receiverEmail) : null],
        ['Parent escrow', e.parentEscrowId ? detailLink('escrow', e.parentEscrowId) : undefined],
        ['State', state(e.status)],
        ['Price', `$${(Number(e.usdCents) / 100).toFixed(2)}`],
        ['Held for the price', e.amountText],
        ['Received', e.receivedText],
        ['Paid out', amount(e.releasedPayout, e.coin)],
        ['Fees paid', amount(e.releasedFee, e.coin)],
        ['Address', copyable(e.address)],
        ['Paid from the wallet by', e.payTransferId ? detailLink('transfer', e.payTransferId) : undefined],
        ['Opened', time(e.createdAt)],
        ['Expires', time(e.expiresAt)],
        ['Paid', time(e.paidAt)],
        ['Released', time(e.releasedAt)],
        ['Cancelled', e.cancelledAt ? time(e.cancelledAt) : undefined],
      ]),
      section(
        'Payout legs',
        [
          ['#', (l) => String(l.seq)],
          ['Kind', (l) => l.kind],
          ['Amount', (l) => l.amountText],
          ['To', (l) => copyable(l.to, 12)],
          ['State', (l) => state(l.status)],
          ['Transfer', (l) => detailLink('transfer', l.transferId, { n: 10 })],
          ['Transaction', (l) => txLink(l.txHash)],
          ['Last error', (l) => l.lastError ?? ''],
        ],
        e.legs,
        h('a', { href: `#/escrow?escrow=${e._id}` }, 'These legs with their actions'),
      ),
    ],
  )
}
