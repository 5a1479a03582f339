// @ts-check
// Signing in: the admin's account (email and password, then its two-factor code when that is on),
// then the admin second factor that elevates the session for the admin routes (the authenticator
// code, or a code mailed on request). The token is kept in sessionStorage only.
import { ApiError, call, session } from './api.js'
import { clear, h, uid } from './dom.js'

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

/** The admin second factor for this session (`adminSession` from GET /v1/admin/session). */
export function renderStepUp(main, { adminSession, onElevated, onSignOut }) {
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
  show(main, el)
}
