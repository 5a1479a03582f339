// @ts-check
// Deep chain reorganisations: the deposits a reorganisation took back, what is held of each and
// what was already spent; an open one is reversed (the credit taken back, the owner notified) or
// kept (only once the deposit is on the canonical chain again with its confirmations).
import { h } from './dom.js'
import { amount, short, time } from './format.js'

const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))
const money = (row, field) => amount(row[field], row.coin, row.decimals ?? undefined)
const idOf = (row) => row._id ?? row.id

export const reorgsResource = {
  id: 'reorgs',
  key: 'r',
  title: 'Chain reorganisations',
  intro:
    'Deposits a chain reorganisation deeper than the confirmations took back. Their value is held on the wallet they credited the moment they are found (what the owner had already spent is the shortfall), and every coin of the chain is halted. Reverse takes the credit back (the shortfall is taken from later funds, or booked to the platform loss account) and notifies the owner; Keep releases the hold once the deposit is on the canonical chain again. Resume the coins when no finding is open.',
  path: '/v1/admin/reorgs',
  filters: [
    { name: 'status', label: 'State', type: 'select', options: ['', 'open', 'reversed', 'kept', 'dropped'] },
  ],
  rowLabel: (r) => `deposit ${short(r.txHash, 10)}`,
  columns: [
    { label: 'Found', cell: (r) => time(r.detectedAt) },
    { label: 'Coin', cell: (r) => String(r.coin).toUpperCase() },
    { label: 'Deposit', num: true, cell: (r) => money(r, 'amount') },
    { label: 'Held', num: true, cell: (r) => money(r, 'held') },
    {
      label: 'Shortfall',
      num: true,
      cell: (r) =>
        BigInt(r.shortfall) > 0n ? h('span', { class: 'bad' }, money(r, 'shortfall')) : money(r, 'shortfall'),
    },
    { label: 'Owner', cell: (r) => `${r.ownerKind} ${short(r.ownerId, 8)}` },
    { label: 'Transaction', cell: (r) => code(r.txHash, 12) },
    { label: 'Block', num: true, cell: (r) => r.blockNumber },
    { label: 'State', cell: (r) => state(r.status) },
    {
      label: 'Resolved',
      cell: (r) => (r.resolvedAt ? `${time(r.resolvedAt)}: ${r.resolveReason ?? ''}` : ''),
    },
  ],
  actions: [
    {
      label: 'Reverse',
      danger: true,
      when: (r) => r.actions?.reverse,
      path: (r) => `/v1/admin/reorgs/${idOf(r)}/reverse`,
      text: (r) =>
        BigInt(r.shortfall) > 0n
          ? 'Takes the credit back: the held part returns to the chain clearing account; the part already spent is taken from what the wallet holds now, and the rest is booked to the platform loss account. The owner is notified.'
          : 'Takes the credit back: the held value returns to the chain clearing account. The owner is notified.',
    },
    {
      label: 'Keep',
      when: (r) => r.actions?.keep,
      path: (r) => `/v1/admin/reorgs/${idOf(r)}/keep`,
      text: () =>
        'Checks on chain that the deposit is in the canonical chain with its confirmations, then releases the hold: the credit stands.',
    },
  ],
}
