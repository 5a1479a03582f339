// @ts-check
// The platform's fees: per coin what the fee address holds, what a sweep in flight reserves, what
// can be swept and where to, with a Sweep action (the amount in whole coins, or all of it); below,
// the latest sweeps with their state and transaction.
import { get } from './api.js'
import { h } from './dom.js'
import { amount, short, time, toBaseUnits } from './format.js'

const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))
const money = (row, field, coin = row.coin) => amount(row[field], coin, row.decimals)

function sweepsTable(data) {
  const sweeps = data.coins
    .flatMap((c) => c.sweeps.map((s) => ({ ...s, decimals: c.decimals })))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
  return h(
    'section',
    { 'aria-labelledby': 'sweeps-title' },
    h('h2', { id: 'sweeps-title' }, 'Latest sweeps'),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'list', id: 'table-sweeps' },
        h('caption', {}, `Latest sweeps: ${sweeps.length} ${sweeps.length === 1 ? 'record' : 'records'}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['When', 'Coin', 'Amount', 'To', 'State', 'Transaction', 'Reason', 'Last error'].map((c, i) =>
              h('th', { scope: 'col', class: i === 2 ? 'num' : null }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          sweeps.length === 0
            ? h('tr', {}, h('td', { colspan: 8, class: 'muted' }, 'No sweep yet.'))
            : sweeps.map((s) =>
                h(
                  'tr',
                  { 'data-id': s._id },
                  h('td', {}, time(s.createdAt)),
                  h('td', {}, String(s.coin).toUpperCase()),
                  h('td', { class: 'num' }, money(s, 'amount')),
                  h('td', {}, code(s.to, 10)),
                  h('td', {}, state(s.status)),
                  h('td', {}, code(s.txHash, 12)),
                  h('td', {}, s.reason),
                  h('td', {}, s.lastError ?? ''),
                ),
              ),
        ),
      ),
    ),
  )
}

export const feesResource = {
  id: 'fees',
  key: 'f',
  title: 'Platform fees',
  intro:
    "Escrow releases pay their platform fee to the platform's fee address; sweeping moves it to the coin's cold address (FEE_SWEEP_ADDRESS, or FEE_SWEEP_ADDRESS_<COIN>) as an ordinary outgoing transfer, one per coin at a time. A sweep that fails for good leaves the fees where they were. Withdrawal fees stay at the users' addresses, where they pay gas, and are not swept.",
  unpaged: true,
  load: () => get('/v1/admin/fees'),
  items: (data) => ({ items: data.coins, page: 1, pages: 1, total: data.coins.length }),
  after: sweepsTable,
  rowLabel: (r) => `${String(r.coin).toUpperCase()} fees`,
  rowId: (r) => r.coin,
  columns: [
    { label: 'Coin', cell: (r) => String(r.coin).toUpperCase() },
    { label: 'At the fee address', num: true, cell: (r) => money(r, 'balance') },
    { label: 'In flight', num: true, cell: (r) => money(r, 'reserved') },
    { label: 'Sweepable', num: true, cell: (r) => money(r, 'sweepable') },
    { label: 'Swept', num: true, cell: (r) => money(r, 'swept') },
    { label: 'Withdrawal fees (not swept)', num: true, cell: (r) => money(r, 'withdrawalFees') },
    {
      label: 'Cold address',
      cell: (r) =>
        r.coldAddress ? code(r.coldAddress, 12) : h('span', { class: 'muted' }, 'not configured'),
    },
    {
      label: 'State',
      cell: (r) => (r.halted ? state('halted') : r.inFlight ? state(r.inFlight.status) : state('ok')),
    },
  ],
  actions: [
    {
      label: 'Sweep',
      danger: true,
      when: (r) => r.coldAddress && !r.halted && !r.inFlight && BigInt(r.sweepable) > 0n,
      path: () => '/v1/admin/fees/sweep',
      text: (r) =>
        `Sends fees from the fee address to ${r.coldAddress} (${r.coldAddressSource}). Up to ${r.sweepableText} can be swept now.`,
      fields: (r) => [
        {
          name: 'amount',
          label: `Amount in ${r.symbol} (empty: all ${r.sweepableText})`,
          required: false,
          pattern: '[0-9]+(\\.[0-9]+)?',
          placeholder: 'all',
        },
      ],
      body: (v, r) => {
        const body = { coin: r.coin, reason: v.reason }
        if (String(v.amount ?? '').trim()) body.amount = toBaseUnits(v.amount, r.decimals)
        return body
      },
    },
  ],
}
