// @ts-check
// "Where is my deposit?": a transaction hash looked up on the chain and in the watcher's records —
// whether the chain knows it, who received value at a platform address, its confirmations, and
// whether it was credited (or why not). A deposit can be re-scanned over its block range; the audit
// log keeps the reason.
import { get } from './api.js'
import { h } from './dom.js'
import { amount, time } from './format.js'
import { detailLink, userLink } from './links.js'

const HASH = /^0x[0-9a-fA-F]{64}$/
const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))

/** The summary of a lookup, above nothing or below its table. */
function summary(data) {
  if (!data) return h('p', { class: 'muted' }, 'Enter the hash of the transaction the customer sent.')
  if (data.invalid) return h('p', { class: 'error', role: 'alert' }, data.invalid)
  return h(
    'section',
    { class: 'deposit-summary', 'aria-label': 'Lookup result' },
    h('p', {}, h('strong', {}, `${data.outcome.replaceAll('_', ' ')}: `), data.explanation),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Transaction'),
      h('dd', {}, h('code', {}, data.txHash)),
      h('dt', {}, 'Block'),
      h('dd', {}, data.blockNumber ?? '—'),
      h('dt', {}, 'Confirmations'),
      h('dd', {}, `${data.confirmations} (needs ${data.requiredConfirmations})`),
      h('dt', {}, 'Watcher has read up to'),
      h('dd', {}, data.watcherBlock ?? '—'),
      h('dt', {}, 'From'),
      h('dd', {}, data.from ? h('code', {}, data.from) : '—'),
      h('dt', {}, 'To'),
      h('dd', {}, data.to ? h('code', {}, data.to) : '—'),
    ),
  )
}

export const depositsResource = {
  id: 'deposits',
  key: 'h',
  title: 'Deposits',
  intro:
    'Where is a deposit: paste the transaction hash. The answer says whether the chain knows it, which platform address received what, its confirmations, and whether it was credited or why not. A deposit the watcher passed without crediting is re-scanned over its block range.',
  unpaged: true,
  filters: [{ name: 'hash', label: 'Transaction hash', type: 'search', placeholder: '0x…' }],
  load: async (params) => {
    const hash = String(params.get('hash') ?? '').trim()
    if (!hash) return null
    if (!HASH.test(hash)) return { invalid: 'A transaction hash is 0x and 64 hexadecimal characters.' }
    return get(`/v1/admin/deposits/${hash}`)
  },
  items: (data) => {
    const items = data?.deposits ?? []
    return { items, page: 1, pages: 1, total: items.length }
  },
  after: summary,
  rowLabel: (r) => `deposit to ${r.address}`,
  rowId: (r) => `${r.address}:${r.coin}:${r.logIndex ?? 'native'}`,
  columns: [
    { label: 'State', cell: (r) => state(r.state) },
    { label: 'Amount', num: true, cell: (r) => amount(r.amount, r.coin, r.decimals ?? undefined) },
    {
      label: 'Owner',
      cell: (r) =>
        r.ownerKind === 'user'
          ? userLink(r.ownerId, r.email)
          : r.ownerKind === 'escrow'
            ? h('span', {}, 'escrow ', detailLink('escrow', r.ownerId, { n: 10 }))
            : `${r.ownerKind} ${r.ownerId}`,
    },
    { label: 'Address', cell: (r) => h('code', {}, r.address) },
    { label: 'Block', num: true, cell: (r) => r.blockNumber },
    { label: 'Credited', cell: (r) => (r.creditedAt ? time(r.creditedAt) : '—') },
    { label: 'Why', cell: (r) => r.explanation },
  ],
  actions: [
    {
      label: 'Re-scan blocks',
      when: (r) => r.state === 'missed' || r.state === 'credited' || r.state === 'confirming',
      path: () => '/v1/admin/deposits/rescan',
      text: (r) =>
        `Reads ${r.address}'s ${String(r.coin).toUpperCase()} deposits in these blocks again and credits what the watcher missed (a deposit is never credited twice), then reconciliation checks the address again.`,
      fields: (r) => [
        { name: 'fromBlock', label: 'From block', type: 'number', min: 0, value: r.blockNumber },
        { name: 'toBlock', label: 'To block', type: 'number', min: 0, value: r.blockNumber },
      ],
      body: (values, r) => ({
        address: r.address,
        coin: r.coin,
        fromBlock: String(values.fromBlock),
        toBlock: String(values.toBlock),
        reason: values.reason,
      }),
    },
  ],
}
