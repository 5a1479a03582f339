// @ts-check
// Signing in: the operator's account (email and password, then its two-factor code when that is on),
// then the admin second factor that elevates the session for the admin routes (the authenticator
// code; a code mailed on request only where ADMIN_SECOND_FACTOR=totp-or-email). An operator without
// an authenticator app turns one on here first; one with a passkey may use it instead (passkeys.js).
// The token is kept in sessionStorage only.
import { ApiError, call, session } from './api.js'
import { clear, h, uid } from './dom.js'
import { passkeyButton, passkeysSupported } from './passkeys.js'

function form(title, intro, fields, submitLabel, onSubmit, extra = []) {
  const error = h('p', { class: 'error', role: 'alert' })
  const submit = h('button', { type: 'submit', class: 'primary' }, submitLabel)
  const el = h(
    'form',
    { class: 'signin' },
    h('h1', {}, title),
    intro ? h('p', {}, intro) : null,
    fields.map((f) => {
      const id = uid('in')
      return h('div', { class: 'field' }, h('label', { for: id }, f.label), h('input', { id, ...f.input }))
    }),
    error,
    h('div', { class: 'actions' }, extra, submit),
  )
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    if (!el.reportValidity()) return
    submit.disabled = true
    error.textContent = ''
    try {
      await onSubmit(Object.fromEntries(new FormData(el).entries()))
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : String(err)
      submit.disabled = false
      el.querySelector('input')?.focus()
    }
  })
  return el
}

const codeInput = {
  name: 'code',
  required: true,
  inputmode: 'numeric',
  pattern: '[0-9]{6}',
  maxlength: 6,
  autocomplete: 'one-time-code',
}

function show(main, el) {
  clear(main).append(el)
  el.querySelector('input')?.focus()
}

/**
 * Email and password, then the account's own two-factor step when it is on.
 * @param {HTMLElement} main
 * @param {{ onSignedIn: () => unknown, notice?: string }} opts
 */
export function renderSignIn(main, { onSignedIn, notice }) {
  const el = form(
    'Sign in',
    notice ?? 'Operators sign in with their own account. Admin actions need a second factor next.',
    [
      { label: 'Email', input: { name: 'email', type: 'email', required: true, autocomplete: 'username' } },
      {
        label: 'Password',
        input: { name: 'password', type: 'password', required: true, autocomplete: 'current-password' },
      },
    ],
    'Sign in',
    async ({ email, password }) => {
      const { data } = await call('POST', '/v1/auth/login', { email, password })
      if (!data.twoFaRequired) {
        session.set(data.token)
        return onSignedIn()
      }
      const temp = data.tempToken.token
      show(
        main,
        form(
          'Two-factor code',
          data.twoFaType === 'google_auth'
            ? 'Enter the code your authenticator app shows for this account.'
            : 'A code was mailed to you; enter it here.',
          [{ label: 'Code', input: codeInput }],
          'Continue',
          async ({ code }) => {
            const res = await call('POST', '/v1/auth/login/2fa', { tempToken: temp, code })
            session.set(res.data.token)
            return onSignedIn()
          },
        ),
      )
    },
  )
  show(main, el)
}

/**
 * Turning on the authenticator app the admin pages need: the secret to add to the app (and its
 * otpauth URI), then a code from the app to confirm it.
 */
function renderTotpSetup(main, { adminSession, onElevated, onSignOut }) {
  const start = form(
    'Authenticator app required',
    'Admin pages are unlocked with a code from an authenticator app (RFC 6238 TOTP). This account has none yet: turn one on to continue.',
    [],
    'Turn on an authenticator app',
    async () => {
      const { data } = await call('POST', '/v1/account/initiate/2fa', { type: 'google_auth' })
      const confirm = form(
        'Add the key to your app',
        'Add this key to your authenticator app (or open the link on the device that has it), then enter the code it shows.',
        [{ label: 'Code from the app', input: codeInput }],
        'Turn on',
        async ({ code }) => {
          await call('POST', '/v1/account/activate/2fa', { code })
          onElevated()
        },
        [h('button', { type: 'button', onclick: onSignOut }, 'Sign out')],
      )
      confirm.insertBefore(
        h(
          'dl',
          { class: 'totp-secret' },
          h('dt', {}, 'Key'),
          h('dd', {}, h('code', { 'data-totp-secret': '' }, data.secret)),
          h('dt', {}, 'Link'),
          h('dd', {}, h('a', { href: data.otpauthUrl }, 'otpauth link')),
        ),
        confirm.querySelector('.field'),
      )
      show(main, confirm)
    },
    [h('button', { type: 'button', onclick: onSignOut }, 'Sign out')],
  )
  start.insertBefore(
    h('p', { class: 'muted' }, `Signed in as ${adminSession.email ?? 'an operator'} (${adminSession.role}).`),
    start.querySelector('.error'),
  )
  show(main, start)
}

/** The admin second factor for this session (`adminSession` from GET /v1/admin/session). */
export function renderStepUp(main, { adminSession, onElevated, onSignOut }) {
  if (adminSession.secondFactor === 'setup')
    return renderTotpSetup(main, { adminSession, onElevated, onSignOut })
  const withPasskey = adminSession.passkeys > 0 && passkeysSupported()
  if (adminSession.secondFactor === 'passkey') {
    const error = h('p', { class: 'error', role: 'alert' })
    const el = h(
      'div',
      { class: 'signin' },
      h('h1', {}, 'Admin second factor'),
      h('p', {}, 'Admin pages are unlocked with your passkey.'),
      error,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: onSignOut }, 'Sign out'),
        withPasskey ? passkeyButton({ onElevated, error }) : null,
      ),
    )
    if (!withPasskey) error.textContent = 'This browser cannot use passkeys: sign in from one that can.'
    return show(main, el)
  }
  const byMail = adminSession.secondFactor === 'email'
  const sent = h('p', { class: 'muted', role: 'status' })
  const extra = [
    h('button', { type: 'button', onclick: onSignOut }, 'Sign out'),
    byMail
      ? h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              try {
                await call('POST', '/v1/admin/session/code')
                sent.textContent = `A code was mailed to ${adminSession.email ?? 'your address'}.`
              } catch (err) {
                sent.textContent = err instanceof ApiError ? err.message : String(err)
              }
            },
          },
          'Mail me a code',
        )
      : null,
  ]
  const el = form(
    'Admin second factor',
    byMail
      ? 'Admin pages need a fresh code: have one mailed to you, then enter it.'
      : 'Admin pages need a fresh code from your authenticator app.',
    [{ label: byMail ? 'Mailed code' : 'Authenticator code', input: codeInput }],
    'Unlock admin pages',
    async ({ code }) => {
      await call('POST', '/v1/admin/session', { code })
      onElevated()
    },
    extra,
  )
  el.insertBefore(sent, el.querySelector('.error'))
  if (withPasskey) {
    const error = /** @type {HTMLElement} */ (el.querySelector('.error'))
    el.querySelector('.actions')?.prepend(passkeyButton({ onElevated, error }))
  }
  show(main, el)
}
