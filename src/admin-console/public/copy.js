// @ts-check
// An id, address or hash as a table shows it (whole, or its start with the whole in the tooltip)
// with a button that copies the whole value: support pastes ids into tickets and searches.
import { toast } from './actions.js'
import { h } from './dom.js'
import { short } from './format.js'

/**
 * @param {unknown} value the whole value
 * @param {number} [n] characters shown before an ellipsis (all when omitted)
 */
export function copyable(value, n) {
  if (!value) return '—'
  const whole = String(value)
  return h(
    'span',
    { class: 'copyable' },
    h('code', { title: whole }, n === undefined ? whole : short(whole, n)),
    h(
      'button',
      {
        type: 'button',
        class: 'copy',
        'aria-label': `Copy ${whole}`,
        title: 'Copy',
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(whole)
            toast(`Copied ${whole}`)
          } catch {
            toast('The browser refused the clipboard: select the text instead')
          }
        },
      },
      '⧉',
    ),
  )
}
