// @ts-check
// Links between the console's pages: an id, a user or a transfer in any table opens its detail
// page (`#/user/<id>`, `#/transfer/<id>` …), with a button that copies the whole value; a
// transaction hash also links to the chain's explorer when the coins configuration names one.
import { get } from './api.js'
import { copyable } from './copy.js'
import { h } from './dom.js'
import { short } from './format.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminChain} AdminChain */

/** @type {AdminChain | undefined} */
let chain

/** The chain and its explorer link, asked once per page load. */
export async function loadChain() {
  if (chain) return chain
  try {
    chain = await get('/v1/admin/chain')
  } catch {
    // without it, hashes are shown without an explorer link; the next page load asks again
  }
  return chain
}

/** A transaction on the chain's explorer, or null when none is configured. */
export function explorerUrl(hash) {
  return hash && chain?.explorerTxUrl ? chain.explorerTxUrl.replace('{txHash}', String(hash)) : null
}

/**
 * A link to the detail page of `kind` (user, transfer, withdrawal, deposit, escrow, job, dispute)
 * with a copy button; `text` replaces the id as the link's text.
 * @param {string} kind
 * @param {unknown} id
 * @param {{ text?: string | null, n?: number }} [o]
 */
export function detailLink(kind, id, o = {}) {
  if (!id) return '—'
  const whole = String(id)
  const el = copyable(whole)
  if (!(el instanceof Node)) return el
  const label = o.text ?? (o.n ? short(whole, o.n) : whole)
  const link = h(
    'a',
    { href: `#/${kind}/${encodeURIComponent(whole)}`, title: `${kind} ${whole}`, 'data-link': kind },
    o.text ? label : h('code', {}, label),
  )
  el.firstChild?.replaceWith(link)
  return el
}

/** A user: their email (or their whole id) linking to the user page. */
export function userLink(id, email) {
  return detailLink('user', id, { text: email ?? null })
}

/** A link to a detail page with nothing beside it (a cell that reads as its text alone). */
export function plainLink(kind, id, text) {
  return id ? h('a', { href: `#/${kind}/${encodeURIComponent(String(id))}`, 'data-link': kind }, text) : '—'
}

/**
 * A transaction hash: the hash (to copy), its deposit lookup when asked for, and the explorer.
 * @param {unknown} hash
 * @param {{ deposit?: boolean, n?: number }} [o]
 */
export function txLink(hash, o = {}) {
  if (!hash) return '—'
  const whole = String(hash)
  const url = explorerUrl(whole)
  return h(
    'span',
    { class: 'tx' },
    o.deposit ? detailLink('deposit', whole, { n: o.n ?? 12 }) : copyable(whole, o.n ?? 12),
    url
      ? h(
          'a',
          { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'explorer', 'data-explorer': '' },
          ' explorer ↗',
        )
      : null,
  )
}
