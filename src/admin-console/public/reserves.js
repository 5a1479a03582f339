// @ts-check
// Proof of reserves: the snapshot history (per coin: block, liabilities, reserves and their ratio
// over time), with a snapshot taken on request. A ratio below 1 is shown as a shortfall.
import { get } from './api.js'
import { h } from './dom.js'
import { amount, short, time } from './format.js'

const ratioCell = (r) =>
  r.ratio === null
    ? '—'
    : Number(r.ratio) < 1
      ? h('span', { class: 'bad' }, `${r.ratio} (shortfall)`)
      : r.ratio

export const reservesResource = {
  id: 'reserves',
  key: 'p',
  title: 'Proof of reserves',
  intro:
    'Signed snapshots of what the platform owes (a Merkle-sum tree every user can check their balance against) and of the reserves on chain at one block, newest first. Users verify them with clients/verify-reserves; see docs/reserves.md.',
  unpaged: true,
  filters: [{ name: 'coin', label: 'Coin', placeholder: 'usdc' }],
  load: (params) => {
    const q = new URLSearchParams({ limit: '200' })
    if (params.get('coin')) q.set('coin', String(params.get('coin')).toLowerCase())
    return get(`/v1/reserves/history?${q}`)
  },
  items: (data) => {
    const items = data?.snapshots ?? []
    return { items, page: 1, pages: 1, total: items.length }
  },
  rowLabel: (r) => `snapshot ${short(r.id, 8)}`,
  columns: [
    { label: 'Taken', cell: (r) => time(r.takenAt) },
    { label: 'Coin', cell: (r) => String(r.coin).toUpperCase() },
    { label: 'Block', num: true, cell: (r) => r.block },
    { label: 'Liabilities', num: true, cell: (r) => amount(r.liabilitiesTotal, r.coin, r.decimals) },
    { label: 'Reserves', num: true, cell: (r) => amount(r.reservesTotal, r.coin, r.decimals) },
    { label: 'Ratio', num: true, cell: ratioCell },
    { label: 'Leaves', num: true, cell: (r) => r.leafCount },
    { label: 'Root', cell: (r) => h('code', { title: r.root }, short(r.root, 12)) },
    { label: 'Trigger', cell: (r) => r.trigger },
  ],
  toolbar: [
    {
      label: 'Take a snapshot now',
      path: () => '/v1/admin/reserves/snapshot',
      text: 'Reads the ledger in one transaction and the reserves at the block it reflects, for every coin; the snapshot is signed and published at once and never changed.',
    },
  ],
}
