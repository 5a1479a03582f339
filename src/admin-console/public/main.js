// @ts-check
// The console's frame: the session (signed in? admin? second factor fresh?), the sections and the
// address (`#/<section>?<filters>`), and the keyboard shortcuts (press ? for the list).
import { ApiError, call, get, session } from './api.js'
import { renderDashboard } from './dashboard.js'
import { detailRoute } from './details.js'
import { clear, h } from './dom.js'
import { learnDecimals, time } from './format.js'
import { renderPasskeys } from './passkeys.js'
import { resources } from './resources.js'
import { setPermissions } from './roles.js'
import { renderSearch } from './search.js'
import { renderSignIn, renderStepUp } from './signin.js'
import { renderList } from './tables.js'

const sections = [
  { id: 'dashboard', key: 'd', title: 'Dashboard', render: renderDashboard },
  { id: 'search', key: 's', title: 'Search', render: renderSearch },
  ...resources.map((r) => ({
    id: r.id,
    key: r.key,
    title: r.title,
    render: (main, ctx) => renderList(main, r, ctx),
  })),
  { id: 'passkeys', key: 'y', title: 'Passkeys', render: renderPasskeys },
]

const main = document.getElementById('main')
const nav = document.getElementById('nav')
const who = document.getElementById('who')
let adminSession

function parseRoute() {
  const raw = location.hash.startsWith('#/') ? location.hash.slice(2) : ''
  const [id, qs] = raw.split('?')
  // a record's page (`#/user/<id>` …), else a section
  const section = detailRoute(id ?? '') ?? sections.find((s) => s.id === id) ?? sections[0]
  return { section, query: new URLSearchParams(qs ?? '') }
}

function navigate(id, query = new URLSearchParams(), { replace = false } = {}) {
  const qs = query.toString()
  const hash = `#/${id}${qs ? `?${qs}` : ''}`
  // Busy from the moment a new page is asked for, until it is drawn.
  main.setAttribute('aria-busy', 'true')
  if (hash === location.hash || replace) {
    history.replaceState(null, '', hash)
    void render()
  } else location.hash = hash
}

function drawFrame(current) {
  nav.hidden = false
  clear(nav).append(
    h(
      'ul',
      {},
      sections.map((s) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: `#/${s.id}`,
              'aria-current': s.id === current.id ? 'page' : null,
              'aria-keyshortcuts': `g ${s.key}`,
            },
            s.title,
          ),
        ),
      ),
    ),
  )
  clear(who).append(
    h('span', {}, adminSession.email ?? ''),
    adminSession.role ? h('span', { class: 'who-muted' }, ` (${adminSession.role})`) : null,
    adminSession.expiresAt
      ? h('span', { class: 'who-muted' }, ` · unlocked until ${time(adminSession.expiresAt).slice(11)}`)
      : null,
    ' ',
    h(
      'button',
      { type: 'button', class: 'small', 'aria-keyshortcuts': '?', onclick: () => openHelp() },
      'Shortcuts',
    ),
    ' ',
    h('button', { type: 'button', class: 'small', onclick: signOut }, 'Sign out'),
  )
}

function hideFrame() {
  nav.hidden = true
  clear(nav)
  clear(who)
}

/** Ends the step-up and revokes the session itself: the token is refused everywhere afterwards. */
async function signOut() {
  try {
    if (session.token) await call('DELETE', '/v1/admin/session')
  } catch {}
  try {
    if (session.token) await call('POST', '/v1/account/logout')
  } catch {}
  session.clear()
  adminSession = undefined
  hideFrame()
  renderSignIn(main, { onSignedIn: render, notice: 'Signed out.' })
}

let rendering = 0
/** Draws the page the address and the session call for; `#main` is busy meanwhile. */
async function render() {
  const mine = ++rendering
  main.setAttribute('aria-busy', 'true')
  try {
    await draw(mine)
  } finally {
    if (mine === rendering) main.setAttribute('aria-busy', 'false')
  }
}

async function draw(mine) {
  if (!session.token) {
    hideFrame()
    return renderSignIn(main, { onSignedIn: render })
  }
  try {
    adminSession = await get('/v1/admin/session')
  } catch (err) {
    if (mine !== rendering) return
    hideFrame()
    if (err instanceof ApiError && err.status === 403) {
      session.clear()
      return renderSignIn(main, { onSignedIn: render, notice: 'This account is not an admin.' })
    }
    if (!session.token)
      return renderSignIn(main, { onSignedIn: render, notice: 'Your session ended; sign in again.' })
    clear(main).append(h('p', { class: 'error', role: 'alert' }, err.message))
    return
  }
  if (mine !== rendering) return
  setPermissions(adminSession.permissions ?? [])
  if (!adminSession.elevated) {
    hideFrame()
    return renderStepUp(main, { adminSession, onElevated: render, onSignOut: signOut })
  }
  await loadCoins()
  if (mine !== rendering) return
  const { section, query } = parseRoute()
  drawFrame(section)
  document.title = `${section.title} · WorkPay operator console`
  // Each page draws into a stage of its own: a page left before its data came (the address changed
  // meanwhile) keeps drawing into its detached stage, never over the page that replaced it.
  const stage = h('div', { class: 'stage' })
  clear(main).append(stage)
  await section.render(stage, { query, navigate })
}

let coinsLoaded = false
/** Each coin's decimals, so every list shows amounts in whole coins. */
async function loadCoins() {
  if (coinsLoaded) return
  try {
    for (const c of await get('/v1/payment/coins')) learnDecimals(c.reference, Number(c.decimal))
    coinsLoaded = true
  } catch {
    // The lists still show base units; the next page load tries again.
  }
}

const help = /** @type {HTMLDialogElement} */ (document.getElementById('help'))

function openHelp() {
  help.showModal()
}

document.getElementById('help-close').addEventListener('submit', (ev) => {
  ev.preventDefault()
  help.close()
})
document.getElementById('skip').addEventListener('click', (ev) => {
  ev.preventDefault()
  main.focus()
})

window.addEventListener('hashchange', async () => {
  if (!(location.hash.startsWith('#/') || location.hash === '')) return
  await render()
  // A new section: reading starts at its heading.
  const heading = main.querySelector('h1')
  if (heading && !main.contains(document.activeElement)) {
    heading.setAttribute('tabindex', '-1')
    heading.focus()
  }
})
window.addEventListener('console:signed-out', () => void render())
window.addEventListener('console:step-up', () => void render())

// Shortcuts: never while typing in a field or with a dialog open. A `g` chord lasts 1.5 s, measured
// between the two key presses' own times (not by a timer), so a busy page does not drop the second key.
const CHORD_MS = 1500
let gPressedAt = Number.NEGATIVE_INFINITY
document.addEventListener('keydown', (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return
  const t = ev.target
  if (
    t instanceof HTMLElement &&
    (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))
  )
    return
  if (document.querySelector('dialog[open]')) return
  if (!adminSession?.elevated) return
  if (ev.timeStamp - gPressedAt < CHORD_MS) {
    gPressedAt = Number.NEGATIVE_INFINITY
    const target = sections.find((s) => s.key === ev.key)
    if (target) {
      ev.preventDefault()
      navigate(target.id)
    }
    return
  }
  switch (ev.key) {
    case 'g':
      gPressedAt = ev.timeStamp
      break
    case '?':
      ev.preventDefault()
      openHelp()
      break
    case '/': {
      const first = /** @type {HTMLElement | null} */ (
        main.querySelector('[data-filter], .filters select, .filters input')
      )
      if (first) {
        ev.preventDefault()
        first.focus()
      }
      break
    }
    case 'r':
      ev.preventDefault()
      void render()
      break
    case '[':
    case ']': {
      const btn = /** @type {HTMLButtonElement | null} */ (
        main.querySelector(`[data-page="${ev.key === '[' ? 'prev' : 'next'}"]`)
      )
      if (btn && !btn.disabled) btn.click()
      break
    }
  }
})

void render()
