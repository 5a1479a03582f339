// The service as its public client sees it: the real app listening on a loopback port, the
// `@pakt/sdk` client pointed at it, users signed up through the SDK, and plain `fetch` for the
// routes the SDK itself cannot reach (its own bugs, named where they are used).
import { PaktSDK } from '@pakt/sdk'
import type { TSchema } from 'typebox'
import { Errors } from 'typebox/value'
import { expect, vi } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

export interface SdkContext {
  t: TestApp
  sdk: PaktSDK
  baseUrl: string
}

/** What every SDK call resolves to: the JSON body of the answer plus `code`, the HTTP status. */
export interface SdkAnswer {
  code?: number
  status: string
  message?: string
  data: any
}

export interface SdkUser {
  id: string
  email: string
  password: string
  token: string
  firstName: string
  lastName: string
}

/** Builds the app on a fresh database, listens on 127.0.0.1 (port 0) and points the SDK at it. */
export async function startSdk(): Promise<SdkContext> {
  // The SDK logs every URL it builds (console.log) and, verbose, every request (console.debug).
  vi.spyOn(console, 'log').mockImplementation(() => {})
  vi.spyOn(console, 'debug').mockImplementation(() => {})
  const t = await createTestApp()
  const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const sdk = await PaktSDK.init({ baseUrl })
  return { t, sdk, baseUrl }
}

/** Registers through `auth.register`, verifies through `auth.verifyAccount` with the mailed code. */
export async function signUp(
  ctx: SdkContext,
  opts: { email?: string; firstName?: string; lastName?: string; password?: string } = {},
): Promise<SdkUser> {
  const email = opts.email ?? uniqueEmail('sdk')
  const password = opts.password ?? PASSWORD
  const firstName = opts.firstName ?? 'Sdk'
  const lastName = opts.lastName ?? 'Client'
  const reg = await ctx.sdk.auth.register({ firstName, lastName, email, password, confirmPassword: password })
  expectOk(reg, 202)
  const ver = await ctx.sdk.auth.verifyAccount({
    tempToken: reg.data.token,
    token: await lastCode(ctx.t, email),
  })
  expectOk(ver)
  const token = ver.data.token as string
  const me = expectOk(await ctx.sdk.account.getUser(token))
  return { id: me._id, email, password, token, firstName, lastName }
}

/** A success answer with the given HTTP status; returns `data`. */
export function expectOk(res: SdkAnswer, code = 200): any {
  expect(res.code, JSON.stringify(res).slice(0, 800)).toBe(code)
  expect(res.status).toBe('success')
  expect(typeof res.message).toBe('string')
  return res.data
}

/** The error envelope with the given HTTP status and `data.code`. */
export function expectError(res: SdkAnswer, code: number, errorCode: string) {
  expect(res.code, JSON.stringify(res).slice(0, 800)).toBe(code)
  expect(res.status).toBe('error')
  expect(typeof res.message).toBe('string')
  expect(res.data?.code).toBe(errorCode)
}

/** Asserts `value` matches `schema`, listing every mismatching field and its value. */
export function expectShape(schema: TSchema, value: unknown, what = 'answer') {
  const errors = Errors(schema, value).map(
    (e) => `${e.instancePath || '/'}: ${e.message} (got ${JSON.stringify(pick(value, e.instancePath))})`,
  )
  expect(errors, `${what} does not match its shape`).toEqual([])
}

function pick(value: unknown, pointer: string): unknown {
  let v: any = value
  for (const part of pointer.split('/').slice(1)) v = v?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  return v
}

/**
 * A request straight to the listening server, for routes the SDK cannot call correctly. Answers
 * like the SDK does: the JSON body plus `code`.
 */
export async function call(
  ctx: SdkContext,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; form?: FormData } = {},
): Promise<SdkAnswer> {
  const headers: Record<string, string> = {}
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  let body: string | FormData | undefined
  if (opts.form) body = opts.form
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(opts.body)
  }
  const res = await fetch(new URL(path, ctx.baseUrl), { method, headers, ...(body ? { body } : {}) })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = { status: 'unparsable', data: text }
  }
  return { ...json, code: res.status }
}

/** Uploads a small PNG through #31 (or #32 with `private`) and returns the file record. */
export async function upload(ctx: SdkContext, user: SdkUser, visibility: 'public' | 'private' = 'public') {
  const form = new FormData()
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png')
  const res = await call(ctx, 'POST', visibility === 'public' ? '/v1/upload' : '/v1/upload/private', {
    token: user.token,
    form,
  })
  return expectOk(res)
}

/** A 1×1 transparent PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

/** A 24-hex id that names nothing. */
export const UNKNOWN_ID = 'ffffffffffffffffffffffff'

/** A different 6-digit code than `code`. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')
