// @ts-check
// The global search: one box for what a customer or a colleague hands over (a transaction hash, an
// address, an email, an id, a name); each hit opens its detail page.
import { get } from './api.js'
import { clear, h, uid } from './dom.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminSearchResult} AdminSearchResult */

const KIND = {
  user: 'User',
  transfer: 'Transfer',
  withdrawal: 'Withdrawal',
  deposit: 'Deposit',
  escrow: 'Escrow',
  escrow_leg: 'Escrow leg',
  job: 'Job',
  dispute: 'Dispute',
}
const MATCH = {
  txHash: 'transaction hash',
  custodialAddress: 'deposit address',
  destinationAddress: 'sent to this address',
  web3Address: 'web3 sign-in address',
  email: 'email',
  id: 'id',
  jobId: 'its job’s id',
  name: 'name or email',
}

/**
 * @param {HTMLElement} main
 * @param {{ query: URLSearchParams, navigate: (id: string, q?: URLSearchParams, o?: { replace?: boolean }) => void }} ctx
 */
export async function renderSearch(main, { query, navigate }) {
  const q = (query.get('q') ?? '').trim()
  const id = uid('search')
  const input = h('input', {
    id,
    name: 'q',
    type: 'search',
    value: q,
    placeholder: 'tx hash, address, email, id or name',
    'data-filter': '',
    autocomplete: 'off',
  })
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Search everything' },
    h('div', { class: 'field inline' }, h('label', { for: id }, 'Search'), input),
    h('button', { type: 'submit' }, 'Search'),
  )
  form.addEventListener('submit', (ev) => {
    ev.preventDefault()
    const next = new URLSearchParams()
    const v = String(input.value).trim()
    if (v) next.set('q', v)
    navigate('search', next)
  })
  const region = h('div', { class: 'search-results', 'aria-live': 'polite' })
  clear(main).append(
    h('h1', {}, 'Search'),
    h(
      'p',
      { class: 'intro' },
      'A transaction hash finds the deposit or the transfer (a replacement’s too) and whose it is; an address finds its owner and what was sent to it; an email, an id of any record, or part of a name finds the rest.',
    ),
    h('div', { class: 'toolbar' }, form),
    region,
  )
  if (!q) {
    input.focus()
    return
  }
  region.append(h('p', { class: 'muted' }, 'Searching…'))
  let data
  try {
    /** @type {AdminSearchResult} */
    data = await get(`/v1/admin/search?q=${encodeURIComponent(q)}`)
  } catch (err) {
    clear(region).append(h('p', { class: 'error', role: 'alert' }, String(err.message ?? err)))
    return
  }
  if (data.hits.length === 0) {
    clear(region).append(h('p', {}, `Nothing matches “${q}”.`))
    return
  }
  clear(region).append(
    h(
      'p',
      { class: 'muted' },
      `${data.hits.length} ${data.hits.length === 1 ? 'match' : 'matches'} (read as ${data.queryKind})`,
    ),
    h(
      'ul',
      { class: 'hits' },
      data.hits.map((hit) =>
        h(
          'li',
          { class: 'hit', 'data-kind': hit.kind },
          h('span', { class: 'hit-kind' }, KIND[hit.kind] ?? hit.kind),
          ' ',
          h('a', { href: hit.link, 'data-hit': hit.id }, hit.label),
          h(
            'span',
            { class: 'muted' },
            ` · ${hit.detail ? `${hit.detail} · ` : ''}matched by ${MATCH[hit.match] ?? hit.match}`,
          ),
        ),
      ),
    ),
  )
}
