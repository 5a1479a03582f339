// @ts-check
// After a restore: the platform's own transactions the restored database did not know (re-attached
// to the withdrawal each paid, or judged external) and the jobs the restore parked for review
// (released or dropped).
import { h } from './dom.js'
import { amount, short, time } from './format.js'

const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))
const idOf = (row) => row._id ?? row.id

export const platformTransfersResource = {
  id: 'platform-transfers',
  key: 'k',
  title: 'Unknown platform transfers',
  intro:
    'Transactions that a custodial key the platform never exported signed, which this database does not know: the platform sent them in a timeline a restore lost. Each halts its coins (unknown_platform_transfer) and is parked, never debited. Re-attach recreates the withdrawal it paid (or takes the open withdrawal you name) and settles it with the transaction, so the ledger ends as if it had been recorded, once. External books it as a transfer signed outside the platform (a leaked key). Resume the coins when none is open.',
  path: '/v1/admin/platform-transfers',
  filters: [
    { name: 'status', label: 'State', type: 'select', options: ['', 'open', 'reattached', 'external'] },
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
      label: 'Resolved',
      cell: (r) =>
        r.resolvedAt
          ? `${time(r.resolvedAt)}: ${r.resolveReason ?? ''}${r.withdrawalId ? ` (withdrawal ${r.withdrawalId})` : ''}`
          : '',
    },
  ],
  actions: [
    {
      label: 'Re-attach',
      when: (r) => r.actions?.reattach,
      path: (r) => `/v1/admin/platform-transfers/${idOf(r)}/reattach`,
      text: (r) =>
        `Records it as the withdrawal of ${r.prefill.ownerId} to ${r.prefill.to}: its amount and fee are taken from the wallet once, its gas from the platform value at the address, in one step. Name an open withdrawal of the copy to settle that one instead.`,
      fields: (r) => [
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
      ],
      body: (values) => ({
        reason: values.reason,
        fee: values.fee,
        ...(values.withdrawalId ? { withdrawalId: values.withdrawalId } : {}),
      }),
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
