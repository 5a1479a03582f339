// @ts-check
// The coins the platform handles, with operators' settings over them and the Add coin form.
import { get } from './api.js'
import { h } from './dom.js'
import { short, time } from './format.js'

const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
const state = (v) =>
  v ? h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v)) : '—'
/** the configured chain's id, learnt with the coins list (the Add coin form fills it in) */
let chainId

export const coinsResource = {
  id: 'coins',
  key: 'c',
  title: 'Coins',
  intro:
    "The coins the platform handles: from its configuration, or added here (an ERC-20 token already on the chain), with operators' settings over them. An inactive coin takes no new withdrawals, payments or wallet views; halting a coin stops crediting and sending in it until it is resumed (reconciliation halts a coin by itself when the ledger and the chain disagree).",
  unpaged: true,
  load: async () => {
    const [coins, rpc] = await Promise.all([get('/v1/admin/coins'), get('/v1/payment/rpc')])
    chainId = rpc.rpcChainId
    return coins
  },
  rowLabel: (r) => String(r.reference).toUpperCase(),
  rowId: (r) => r.reference,
  toolbar: [
    {
      label: 'Add coin',
      path: () => '/v1/admin/coins',
      text: 'An ERC-20 token already deployed on the chain. Its contract is read first (it must answer decimals()); every process takes the coin at once, and deposits of it are credited from now on.',
      fields: () => [
        { name: 'symbol', label: 'Symbol', placeholder: 'DAI', pattern: '[A-Za-z0-9][A-Za-z0-9.]{0,15}' },
        { name: 'name', label: 'Name', placeholder: 'Dai Stablecoin' },
        {
          name: 'contractAddress',
          label: 'Contract address',
          pattern: '0x[0-9a-fA-F]{40}',
          placeholder: '0x…',
        },
        {
          name: 'decimals',
          label: 'Decimals',
          type: 'number',
          min: 0,
          max: 36,
          step: 1,
          required: false,
          hint: "Checked against the contract's; empty: the contract's.",
        },
        { name: 'chain', label: 'Chain id', value: chainId ?? '', hint: 'The configured chain.' },
        { name: 'icon', label: 'Icon URL', type: 'url', required: false },
        {
          name: 'rate',
          label: 'USD per whole coin',
          required: false,
          pattern: '[0-9]{1,18}(\\.[0-9]{1,18})?',
          hint: 'A static rate; without a price feed an active coin needs one.',
        },
        {
          name: 'active',
          label: 'Active at once',
          type: 'select',
          value: 'no',
          options: [
            { value: 'no', label: 'No: added inactive, activated later' },
            { value: 'yes', label: 'Yes' },
          ],
        },
      ],
      body: (v) => ({
        reason: v.reason,
        symbol: v.symbol,
        name: v.name,
        contractAddress: v.contractAddress,
        chain: String(v.chain),
        active: v.active === 'yes',
        ...(v.decimals === '' ? {} : { decimals: v.decimals }),
        ...(v.icon ? { icon: v.icon } : {}),
        ...(v.rate ? { rate: String(v.rate) } : {}),
      }),
    },
  ],
  columns: [
    { label: 'Coin', cell: (r) => String(r.reference).toUpperCase() },
    { label: 'Name', cell: (r) => r.name },
    { label: 'Contract', cell: (r) => (r.isToken ? code(r.contractAddress, 12) : 'native') },
    { label: 'Decimals', num: true, cell: (r) => String(r.decimals) },
    { label: 'Active', cell: (r) => state(r.active ? 'active' : 'inactive') },
    {
      label: 'USD rate',
      num: true,
      cell: (r) => (r.usdRate === null ? 'none' : `$${r.usdRate}${r.rateSet ? ' (set)' : ''}`),
    },
    { label: 'State', cell: (r) => state(r.halted ? 'halted' : 'running') },
    { label: 'Source', cell: (r) => (r.addedBy ? `added ${time(r.addedAt)}` : 'configuration') },
  ],
  actions: [
    {
      label: 'Deactivate',
      danger: true,
      when: (r) => r.active && r.isToken,
      path: (r) => `/v1/admin/coins/${r.reference}/deactivate`,
      text: () =>
        'New withdrawals, payments and wallet views in this coin are refused from the next request; what is under way settles.',
    },
    {
      label: 'Activate',
      when: (r) => !r.active,
      path: (r) => `/v1/admin/coins/${r.reference}/activate`,
    },
    {
      label: 'Set USD rate',
      path: (r) => `/v1/admin/coins/${r.reference}/rate`,
      text: () =>
        'A static USD rate per whole coin; it wins over the configured rate and the feed. Empty: back to them.',
      fields: (r) => [
        {
          name: 'usdRate',
          label: 'USD per whole coin',
          required: false,
          value: r.rateSet ? r.usdRate : '',
        },
      ],
      body: (v) => ({ ...v, usdRate: v.usdRate ? String(v.usdRate) : null }),
    },
    {
      label: 'Halt',
      danger: true,
      when: (r) => !r.halted,
      path: (r) => `/v1/admin/coins/${r.reference}/halt`,
      text: () =>
        'Nothing is credited or sent in this coin until it is resumed (movements are parked, not lost).',
    },
    {
      label: 'Resume',
      when: (r) => r.halted,
      path: (r) => `/v1/admin/coins/${r.reference}/resume`,
      text: () => 'Crediting and sending start again; parked movements are credited in chain order.',
    },
  ],
}
