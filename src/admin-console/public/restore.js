// @ts-check
// After a restore: the platform's own transactions the restored database did not know (re-attached
// to the withdrawal, escrow leg or fee sweep each paid, booked as a loss, or judged external) and
// the jobs the restore parked for review (released or dropped).
import { h } from './dom.js'
import { amount, short, time } from './format.js'

const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))
const idOf = (row) => row._id ?? row.id

/** A candidate record as an operator reads it: `payout leg 65f1c0a2… (queued)`. */
const candidateLabel = (c) =>
  `${c.kind === 'escrowLeg' ? `${c.what} leg` : 'sweep'} ${short(c.id, 8)} to ${short(c.to, 10)} (transfer ${c.transferStatus})`

/** The re-attach dialog's fields: a withdrawal's, or the choice of the leg or sweep it paid. */
function reattachFields(r) {
  if (r.ownerKind === 'user')
    return [
      {
        name: 'withdrawalId',
        label: 'Open withdrawal it paid (empty: recreate it)',
        required: false,
        pattern: '[0-9a-f]{24}',
      },
      {
        name: 'fee',
        label: 'Withdrawal fee charged, base units',
        value: r.prefill.fee ?? '0',
        pattern: '[0-9]{1,40}',
      },
    ]
  const options = (r.candidates ?? []).map((c) => ({ value: c.id, label: candidateLabel(c) }))
  if (r.prefill.recreates === 'feeSweep')
    options.unshift({ value: '', label: `Recreate the sweep to ${short(r.to, 10)} (none is open)` })
  return [
    {
      name: 'record',
      label: r.ownerKind === 'escrow' ? 'The escrow leg it paid' : 'The fee sweep it paid',
      type: 'select',
      required: false,
      value: options[0]?.value ?? '',
      options,
    },
  ]
}

function reattachBody(r, values) {
  if (r.ownerKind === 'user')
    return {
      reason: values.reason,
      fee: values.fee,
      ...(values.withdrawalId ? { withdrawalId: values.withdrawalId } : {}),
    }
  const key = r.ownerKind === 'escrow' ? 'legId' : 'sweepId'
  return { reason: values.reason, ...(values.record ? { [key]: values.record } : {}) }
}

export const platformTransfersResource = {
  id: 'platform-transfers',
  key: 'k',
  title: 'Unknown platform transfers',
  intro:
    'Transactions that a custodial key the platform never exported signed, which this database does not know: the platform sent them in a timeline a restore lost. Each halts its coins (unknown_platform_transfer) and is parked, never debited. Re-attach settles what it paid with the transaction, so the ledger ends as if it had been recorded, once: a user’s withdrawal (recreated, or the open one you name), an escrow’s open leg, or a fee sweep (the open one, or recreated to the cold address); when several match you pick one of the candidates. Loss books an escrow’s or the fee address’s transaction that matches nothing out of that account (settle the escrow or the fees by hand). External books it as a transfer signed outside the platform (a leaked key). Resume the coins when none is open.',
  path: '/v1/admin/platform-transfers',
  filters: [
    {
      name: 'status',
      label: 'State',
      type: 'select',
      options: ['', 'open', 'reattached', 'external', 'lost'],
    },
  ],
  rowLabel: (r) => `transaction ${short(r.txHash, 10)}`,
  columns: [
    { label: 'Found', cell: (r) => time(r.detectedAt) },
    { label: 'Coin', cell: (r) => String(r.coin).toUpperCase() },
    { label: 'Amount', num: true, cell: (r) => amount(r.amount, r.coin, r.decimals ?? undefined) },
    {
      label: 'From',
      cell: (r) => h('span', {}, `${r.ownerKind} ${short(r.ownerId, 8)} `, code(r.address, 10)),
    },
    { label: 'To', cell: (r) => code(r.to, 10) },
    { label: 'Transaction', cell: (r) => code(r.txHash, 12) },
    { label: 'Block', num: true, cell: (r) => r.blockNumber },
    { label: 'State', cell: (r) => state(r.status) },
    {
      label: 'Candidates',
      cell: (r) =>
        r.status !== 'open' || r.ownerKind === 'user'
          ? ''
          : (r.candidates ?? []).length > 0
            ? r.candidates.map(candidateLabel).join('; ')
            : r.prefill.recreates === 'feeSweep'
              ? 'none open: a sweep is recreated'
              : 'none: book it as a loss',
    },
    {
      label: 'Resolved',
      cell: (r) =>
        r.resolvedAt
          ? `${time(r.resolvedAt)}: ${r.resolveReason ?? ''}${r.record ? ` (${r.record.kind} ${r.record.id})` : ''}`
          : '',
    },
  ],
  actions: [
    {
      label: 'Re-attach',
      when: (r) => r.actions?.reattach,
      path: (r) => `/v1/admin/platform-transfers/${idOf(r)}/reattach`,
      text: (r) =>
        r.ownerKind === 'user'
          ? `Records it as the withdrawal of ${r.prefill.ownerId} to ${r.prefill.to}: its amount and fee are taken from the wallet once, its gas from the platform value at the address, in one step. Name an open withdrawal of the copy to settle that one instead.`
          : `Settles the ${r.ownerKind === 'escrow' ? 'escrow leg' : 'fee sweep'} it paid with the transaction, in one step: its hold posted once, its gas from the platform value at the address, the ${r.ownerKind === 'escrow' ? 'leg paid and the escrow released when it was the last' : 'sweep confirmed'}.`,
      fields: reattachFields,
      body: (values, r) => reattachBody(r, values),
    },
    {
      label: 'Loss',
      danger: true,
      when: (r) => r.actions?.loss,
      path: (r) => `/v1/admin/platform-transfers/${idOf(r)}/loss`,
      text: (r) =>
        `Books its value out of the ${r.ownerKind === 'escrow' ? 'escrow’s' : 'fee'} account as gone and its gas from the platform value at the address, in one step. Settle what the ${r.ownerKind === 'escrow' ? 'escrow' : 'fee account'} owes by hand afterwards.`,
    },
    {
      label: 'External',
      danger: true,
      when: (r) => r.actions?.external,
      path: (r) => `/v1/admin/platform-transfers/${idOf(r)}/external`,
      text: () =>
        'Judges it signed outside the platform (a leaked key): once its coins resume it is booked as an outside withdrawal of the owner. Treat the key as compromised.',
    },
  ],
}

export const parkedJobsResource = {
  id: 'parked-jobs',
  key: 'j',
  title: 'Parked jobs',
  intro:
    'Jobs with an outside effect (mail, webhooks, chain transfers, object deletions) that a restore parked: the world may have seen them already. Release runs one; Drop deletes it. A parked transfer is released (or its transfer cancelled), never dropped.',
  path: '/v1/admin/parked-jobs',
  filters: [{ name: 'kind', label: 'Kind', type: 'search', placeholder: 'mail.send, outgoing.send…' }],
  rowLabel: (r) => `${r.kind} job ${short(idOf(r), 8)}`,
  columns: [
    { label: 'Created', cell: (r) => time(r.createdAt) },
    { label: 'Kind', cell: (r) => r.kind },
    { label: 'About', cell: (r) => JSON.stringify(r.about) },
    { label: 'Attempts', num: true, cell: (r) => String(r.attempts) },
  ],
  actions: [
    {
      label: 'Release',
      path: (r) => `/v1/admin/parked-jobs/${idOf(r)}/release`,
      text: () => 'Queued again, due now.',
    },
    {
      label: 'Drop',
      danger: true,
      when: (r) => r.kind !== 'outgoing.send',
      path: (r) => `/v1/admin/parked-jobs/${idOf(r)}/drop`,
      text: () => 'Deleted without running; the audit log keeps what it was.',
    },
  ],
}
