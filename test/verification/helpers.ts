// Shared steps of the identity-verification tests: real images (PNG built byte by byte with a
// valid CRC, so the files module's own type detection agrees), a session started through the API,
// images sent, and the signed URL of an image read back through the app.
import { deflateSync } from 'node:zlib'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}

/** A real grey PNG of `side`×`side` pixels (`shade` tells images apart). */
export function png(side = 8, shade = 128): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(side, 0)
  ihdr.writeUInt32BE(side, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 0 // greyscale
  const rows = Buffer.concat(Array.from({ length: side }, () => Buffer.from([0, ...Array(side).fill(shade)])))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

export const PERSON = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  gender: 'F',
  country: 'GB',
  fullAddress: '12 St James Square, London',
  documentType: 'PASSPORT',
  documentNumber: 'P1234567',
  dateOfBirth: '1990-12-10',
}

export const NEW = '/v1/user-verification/veriff/session/new'
export const MEDIA = '/v1/user-verification/veriff/session/media'
export const ATTEMPTS = '/v1/user-verification/veriff/session/attempts'
export const MINE = '/v1/user-verification/user'
export const DELETE = '/v1/user-verification/veriff/session/delete'

export async function startSession(t: TestApp, user: TestUser, over: Record<string, unknown> = {}) {
  const res = await t.req({ method: 'POST', url: NEW, token: user.token, payload: { ...PERSON, ...over } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as {
    status: string
    verification: {
      id: string
      url: string
      vendorData: string
      host: string
      status: string
      sessionToken: string
    }
  }
}

export function sendImage(t: TestApp, user: TestUser, context: string, bytes: Buffer, asDataUrl = false) {
  const b64 = bytes.toString('base64')
  return t.req({
    method: 'POST',
    url: MEDIA,
    token: user.token,
    payload: {
      context,
      file: { content: asDataUrl ? `data:image/png;base64,${b64}` : b64, name: `${context}.png` },
    },
  })
}

/** Reads a signed URL of the disk store back through the app (its path and query). */
export function fetchUrl(t: TestApp, url: string) {
  const u = new URL(url)
  return t.req({ method: 'GET', url: `${u.pathname}${u.search}` })
}

export async function kycOf(t: TestApp, user: TestUser) {
  const me = await t.req({ method: 'GET', url: '/v1/account', token: user.token })
  expect(me.statusCode, me.body).toBe(200)
  return { kyc: me.json().data.kyc as boolean, kycStatus: me.json().data.kycStatus as string | null }
}

export async function notificationsOf(t: TestApp, user: TestUser) {
  const res = await t.req({ method: 'GET', url: '/v1/notifications/?limit=100', token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.notification as { type: string; title: string; description: string }[]
}
