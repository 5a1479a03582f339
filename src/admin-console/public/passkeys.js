// @ts-check
// Passkeys in the console: unlocking the admin pages with one (navigator.credentials.get), adding
// one (navigator.credentials.create) and the Passkeys page that lists and removes the operator's
// own. The service sends the W3C JSON forms of the options (binary values base64url) and reads the
// same form back; this file converts between them and the ArrayBuffers the browser API takes.
import { openAction, toast } from './actions.js'
import { ApiError, call, get } from './api.js'
import { clear, h, uid } from './dom.js'
import { time } from './format.js'

/** @param {string} text base64url */
function toBuffer(text) {
  const b64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=')
  const bin = atob(b64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  return bytes.buffer
}

/** @param {ArrayBuffer | null | undefined} buf */
function toText(buf) {
  if (!buf) return null
  let bin = ''
  for (const b of new Uint8Array(buf)) bin += String.fromCharCode(b)
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** @param {Array<{ id: string, type: string, transports?: string[] }> | undefined} list */
const descriptors = (list) =>
  (list ?? []).map((c) => ({
    id: toBuffer(c.id),
    type: /** @type {'public-key'} */ ('public-key'),
    ...(c.transports ? { transports: /** @type {AuthenticatorTransport[]} */ (c.transports) } : {}),
  }))

/**
 * A browser credential in the JSON form the service reads: `response` has the client data and
 * the ceremony's own parts (the attestation, or the assertion's signature).
 * @param {PublicKeyCredential} cred
 * @param {Record<string, unknown>} parts
 */
function credentialJson(cred, parts) {
  return {
    id: cred.id,
    rawId: toText(cred.rawId),
    type: 'public-key',
    authenticatorAttachment: cred.authenticatorAttachment ?? undefined,
    clientExtensionResults: cred.getClientExtensionResults(),
    response: { clientDataJSON: toText(cred.response.clientDataJSON), ...parts },
  }
}

/** Whether this browser can use passkeys at all. */
export const passkeysSupported = () =>
  typeof window.PublicKeyCredential === 'function' && !!navigator.credentials

/**
 * Creates a passkey in the browser for the service's registration options and answers its JSON.
 * @param {any} o PublicKeyCredentialCreationOptionsJSON
 */
async function create(o) {
  const cred = /** @type {PublicKeyCredential | null} */ (
    await navigator.credentials.create({
      publicKey: {
        ...o,
        challenge: toBuffer(o.challenge),
        user: { ...o.user, id: toBuffer(o.user.id) },
        excludeCredentials: descriptors(o.excludeCredentials),
      },
    })
  )
  if (!cred) throw new Error('No passkey was created')
  const r = /** @type {AuthenticatorAttestationResponse} */ (cred.response)
  return credentialJson(cred, {
    attestationObject: toText(r.attestationObject),
    transports: typeof r.getTransports === 'function' ? r.getTransports() : [],
  })
}

/**
 * Signs the service's authentication options with a passkey and answers its JSON.
 * @param {any} o PublicKeyCredentialRequestOptionsJSON
 */
async function sign(o) {
  const cred = /** @type {PublicKeyCredential | null} */ (
    await navigator.credentials.get({
      publicKey: {
        ...o,
        challenge: toBuffer(o.challenge),
        allowCredentials: descriptors(o.allowCredentials),
      },
    })
  )
  if (!cred) throw new Error('No passkey answered')
  const r = /** @type {AuthenticatorAssertionResponse} */ (cred.response)
  return credentialJson(cred, {
    authenticatorData: toText(r.authenticatorData),
    signature: toText(r.signature),
    userHandle: toText(r.userHandle),
  })
}

/** A browser refusal (cancelled, timed out, not allowed) said plainly. */
function explain(err) {
  if (err instanceof ApiError) return err.message
  if (err instanceof DOMException && err.name === 'NotAllowedError')
    return 'The passkey prompt was cancelled or timed out.'
  if (err instanceof DOMException && err.name === 'InvalidStateError')
    return 'This authenticator holds a passkey of this account already.'
  return String(err?.message ?? err)
}

/** Unlocks this session with one of the operator's passkeys (the step-up). */
export async function unlockWithPasskey() {
  const options = (await call('POST', '/v1/admin/session/passkey/options', {})).data
  const credential = await sign(options)
  return (await call('POST', '/v1/admin/session/passkey', { credential })).data
}

/**
 * Adds a passkey: from an unlocked session, or a first one with the authenticator `code`.
 * @param {string} name
 * @param {string} [code]
 */
export async function addPasskey(name, code) {
  const options = (await call('POST', '/v1/admin/passkeys/options', code ? { code } : {})).data
  const credential = await create(options)
  return (await call('POST', '/v1/admin/passkeys', { name, credential })).data
}

/** A "Use a passkey" button for the sign-in's step-up; `onElevated` after the unlock. */
export function passkeyButton({ onElevated, error }) {
  const button = h('button', { type: 'button', class: 'primary' }, 'Use a passkey')
  button.addEventListener('click', async () => {
    button.disabled = true
    error.textContent = ''
    try {
      await unlockWithPasskey()
      onElevated()
    } catch (err) {
      error.textContent = explain(err)
      button.disabled = false
    }
  })
  return button
}

/** The Passkeys page: the operator's own passkeys, adding one, removing one. */
export async function renderPasskeys(main) {
  const list = h('div', {})
  const status = h('p', { class: 'muted', role: 'status' })
  const nameId = uid('pk')
  const form = h(
    'form',
    { class: 'filters' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: nameId }, 'Name of the new passkey'),
      h('input', {
        id: nameId,
        name: 'name',
        required: true,
        maxlength: 60,
        placeholder: 'e.g. Work laptop',
      }),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Add a passkey'),
  )
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    if (!form.reportValidity()) return
    const name = String(new FormData(form).get('name')).trim()
    status.textContent = 'Follow the browser’s prompt…'
    try {
      await addPasskey(name)
      status.textContent = `Passkey “${name}” added.`
      form.reset()
      await draw()
    } catch (err) {
      status.textContent = explain(err)
    }
  })

  async function draw() {
    clear(list)
    const { data } = await get('/v1/admin/passkeys')
    if (data.length === 0) {
      list.append(
        h('p', { class: 'muted' }, 'No passkeys yet: the admin pages unlock with the authenticator app.'),
      )
      return
    }
    list.append(
      h(
        'table',
        {},
        h('caption', {}, 'Your passkeys'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Kind', 'Added', 'Last used', ''].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          data.map((p) =>
            h(
              'tr',
              {},
              h('td', {}, p.name),
              h('td', {}, p.deviceType === 'multiDevice' ? 'synced' : 'this device only'),
              h('td', {}, time(p.createdAt)),
              h('td', {}, p.lastUsedAt ? time(p.lastUsedAt) : 'never'),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    onclick: () =>
                      openAction({
                        title: 'Remove passkey',
                        text: `“${p.name}” will no longer unlock the admin pages.`,
                        confirm: 'Remove',
                        danger: true,
                        send: async (v) =>
                          (await call('POST', `/v1/admin/passkeys/${encodeURIComponent(p.id)}/remove`, v))
                            .message,
                        done: draw,
                      }),
                  },
                  'Remove',
                ),
              ),
            ),
          ),
        ),
      ),
    )
  }

  clear(main).append(
    h('h1', {}, 'Passkeys'),
    h(
      'p',
      { class: 'muted' },
      'A passkey unlocks the admin pages instead of the authenticator code: Touch ID, Windows Hello, a phone or a security key. Each is yours only; an admin can clear them if a device is lost.',
    ),
    passkeysSupported() ? form : h('p', { class: 'error' }, 'This browser cannot use passkeys.'),
    status,
    list,
  )
  try {
    await draw()
  } catch (err) {
    toast(explain(err))
  }
}
