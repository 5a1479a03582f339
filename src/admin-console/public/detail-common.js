// @ts-check
// The pieces every detail page is made of: a heading, facts (labels beside values), sections with
// a small table each, and the error shown when the record is not there.
import { ApiError } from './api.js'
import { clear, h } from './dom.js'

const span = (v) => (v instanceof Node ? v : String(v ?? '—'))

/** `pairs`: [label, value] (a null value shows a dash; a row whose value is undefined is left out). */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === '' ? '—' : span(v))]),
  )
}

export const state = (v) =>
  v ? h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v)) : '—'

/**
 * A titled section with a table of `rows` (an empty one says so).
 * @template T
 * @param {string} title
 * @param {Array<[string, (row: T) => unknown]>} columns
 * @param {T[]} rows
 * @param {Node | string | null} [more] a line under the table (a link to the whole list)
 */
export function section(title, columns, rows, more = null) {
  const id = `sec-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return h(
    'section',
    { class: 'card detail-section', 'aria-labelledby': id },
    h('h2', { id }, title),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'list' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            columns.map(([label]) => h('th', { scope: 'col' }, label)),
          ),
        ),
        h(
          'tbody',
          {},
          rows.length === 0
            ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, 'Nothing here.'))
            : rows.map((r) =>
                h(
                  'tr',
                  {},
                  columns.map(([, cell]) => h('td', {}, span(cell(r)))),
                ),
              ),
        ),
      ),
    ),
    more ? h('p', { class: 'more' }, more) : null,
  )
}

/** A block of text (a description, a note) under a heading. */
export function prose(title, text) {
  return h(
    'section',
    { class: 'card detail-section' },
    h('h2', {}, title),
    text ? h('p', { class: 'prose' }, text) : h('p', { class: 'muted' }, 'None.'),
  )
}

/** Files as links that open in a new tab. */
export function fileList(files) {
  if (!files?.length) return 'none'
  return h(
    'ul',
    { class: 'plain' },
    files.map((f) =>
      h(
        'li',
        {},
        f.url
          ? h('a', { href: f.url, target: '_blank', rel: 'noopener noreferrer' }, f.name ?? 'file')
          : (f.name ?? 'file'),
      ),
    ),
  )
}

/**
 * Draws a detail page: the heading at once, then what `load` answers drawn by `draw`; a missing
 * record (404) or any error is said in place.
 * @template T
 * @param {HTMLElement} main
 * @param {string} title
 * @param {() => Promise<T>} load
 * @param {(data: T) => Array<Node | string | null>} draw
 */
export async function detailPage(main, title, load, draw) {
  const body = h('div', { class: 'detail', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'))
  clear(main).append(h('h1', {}, title), body)
  let data
  try {
    data = await load()
  } catch (err) {
    body.removeAttribute('aria-busy')
    const text =
      err instanceof ApiError
        ? err.status === 404
          ? `Not found: ${err.message} (${err.code}).`
          : `${err.message} (${err.code})`
        : String(err)
    clear(body).append(h('p', { class: 'error', role: 'alert' }, text))
    return
  }
  body.removeAttribute('aria-busy')
  clear(body).append(...draw(data).filter((n) => n !== null))
}
