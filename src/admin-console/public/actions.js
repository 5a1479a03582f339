// @ts-check
// Every action goes through one dialog: what it does, its own fields if any, and the reason the
// audit log keeps (required, 3–500 characters). The dialog is a native <dialog> (focus stays in
// it, Esc closes it); the answer or the error is shown before anything else happens.
import { ApiError } from './api.js'
import { clear, h, uid } from './dom.js'

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer

/** @param {string} text */
export function toast(text) {
  const el = document.getElementById('toast')
  el.textContent = text
  el.classList.add('shown')
  clearTimeout(toastTimer)
  toastTimer = setTimeout(() => el.classList.remove('shown'), 6000)
}

function field(f) {
  const id = uid('f')
  const common = {
    id,
    name: f.name,
    required: f.required !== false,
    'aria-describedby': f.hint ? `${id}-hint` : undefined,
  }
  const input =
    f.type === 'select'
      ? h(
          'select',
          common,
          f.options.map((o) =>
            h('option', { value: o.value ?? o, selected: o.value === f.value }, o.label ?? o),
          ),
        )
      : h('input', {
          ...common,
          type: f.type ?? 'text',
          value: f.value,
          min: f.min,
          max: f.max,
          step: f.step,
          pattern: f.pattern,
          placeholder: f.placeholder,
          autocomplete: 'off',
        })
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, f.label),
    input,
    f.hint ? h('p', { id: `${id}-hint`, class: 'hint' }, f.hint) : null,
  )
}

/**
 * Opens the action dialog. `send(values)` performs the call and returns the API's message;
 * `done()` runs after a success (e.g. reload the table).
 */
export function openAction({ title, text, fields = [], confirm = 'Confirm', danger = false, send, done }) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('dialog'))
  const opener = document.activeElement
  const error = h('p', { class: 'error', role: 'alert' })
  const reasonId = uid('reason')
  const submit = h('button', { type: 'submit', class: danger ? 'danger' : 'primary' }, confirm)
  const form = h(
    'form',
    { class: 'action-form', novalidate: false },
    h('h2', { id: 'dialog-title' }, title),
    text ? h('p', {}, text) : null,
    fields.map(field),
    h(
      'div',
      { class: 'field' },
      h('label', { for: reasonId }, 'Reason (kept in the audit log)'),
      h('textarea', { id: reasonId, name: 'reason', required: true, minlength: 3, maxlength: 500, rows: 3 }),
    ),
    error,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => dialog.close() }, 'Close'),
      submit,
    ),
  )
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    if (!form.reportValidity()) return
    /** @type {Record<string, unknown>} */
    const values = Object.fromEntries(new FormData(form).entries())
    values.reason = String(values.reason).trim()
    for (const f of fields)
      if (f.type === 'number' && values[f.name] !== '') values[f.name] = Number(values[f.name])
    submit.disabled = true
    error.textContent = ''
    try {
      const message = await send(values)
      dialog.close()
      toast(`${title}: ${message}`)
      await done?.()
    } catch (err) {
      error.textContent = err instanceof ApiError ? `${err.message} (${err.code})` : String(err)
      if (err instanceof ApiError && err.needsStepUp) dialog.close()
    } finally {
      submit.disabled = false
    }
  })
  clear(dialog).append(form)
  dialog.addEventListener(
    'close',
    () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
    },
    { once: true },
  )
  dialog.showModal()
  const first = form.querySelector('input, select, textarea')
  first?.focus()
}
