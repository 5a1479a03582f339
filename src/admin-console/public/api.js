// @ts-check
// The API from the console: same origin, the bearer token kept in sessionStorage (gone when the
// tab closes, never in localStorage or a cookie), every answer unwrapped from the envelope.
const TOKEN = 'workpay.admin.token'

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN)
  },
  set(token) {
    sessionStorage.setItem(TOKEN, token)
  },
  clear() {
    sessionStorage.removeItem(TOKEN)
  },
}

/** @typedef {import('../../../clients/typescript/index.ts').ErrorCode} ErrorCode */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorCode | 'NETWORK' | 'BAD_ANSWER' | 'ERROR'} code the catalogue's code, or what the console saw itself
   * @param {string} message
   * @param {Record<string, unknown>} [data]
   */
  constructor(status, code, message, data) {
    super(message)
    this.status = status
    this.code = code
    this.data = data
  }

  /** the admin routes' answer when the session has no fresh second factor */
  get needsStepUp() {
    return this.status === 403 && /second factor/i.test(this.message)
  }
}

/**
 * Downloads a file the API answers (a CSV export) under the name it gives: fetched with the token,
 * then saved through a temporary object URL. Throws ApiError on an error envelope.
 */
export async function download(path) {
  const headers = session.token ? { authorization: `Bearer ${session.token}` } : {}
  let res
  try {
    res = await fetch(path, { headers })
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service cannot be reached')
  }
  if (!res.ok) {
    const json = await res.json().catch(() => undefined)
    throw new ApiError(
      res.status,
      json?.data?.code ?? 'ERROR',
      json?.message ?? `HTTP ${res.status}`,
      json?.data,
    )
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export'
  const url = URL.createObjectURL(await res.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
  return { name, total: Number(res.headers.get('x-total-count') ?? 0) }
}

/** Calls the API and returns `{ data, message }`; throws ApiError on an error envelope. */
export async function call(method, path, body) {
  const headers = { accept: 'application/json' }
  if (session.token) headers.authorization = `Bearer ${session.token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  let res
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service cannot be reached')
  }
  let json
  try {
    json = await res.json()
  } catch {
    throw new ApiError(res.status, 'BAD_ANSWER', `Unexpected answer (HTTP ${res.status})`)
  }
  if (!res.ok || json.status !== 'success') {
    const err = new ApiError(
      res.status,
      json?.data?.code ?? 'ERROR',
      json?.message ?? `HTTP ${res.status}`,
      json?.data,
    )
    if (res.status === 401 && session.token) {
      session.clear()
      window.dispatchEvent(new CustomEvent('console:signed-out', { detail: err.message }))
    }
    if (err.needsStepUp) window.dispatchEvent(new CustomEvent('console:step-up'))
    throw err
  }
  return { data: json.data, message: json.message }
}

export const get = async (path) => (await call('GET', path)).data
