// @ts-check
// A small element builder: text is always set as text (never parsed as HTML), events are
// listeners, so no inline script or style is ever produced (the page's CSP forbids both).
const SVG_NS = 'http://www.w3.org/2000/svg'

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value)
    else if (name === 'class')
      el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return el
}

/** An HTML element: h('button', { type: 'button', onclick }, 'Retry') */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children)
}

/** An SVG element (for the plots). */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children)
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove()
  return el
}

let seq = 0
/** A unique id for label/aria wiring. */
export function uid(prefix = 'id') {
  seq += 1
  return `${prefix}-${seq}`
}
