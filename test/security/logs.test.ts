// What reaches the log of a production process: no 6-digit code (the outbox mailer keeps the
// mail but prints only who it is for), no password, no bearer token, and no signature of a
// pre-signed file URL.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Database } from '../../src/db/index.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { createOutboxMailer } from '../../src/platform/mail/mailer.ts'
import { multipart } from '../files/support.ts'
import { openTestDatabase, TEST_ENV } from '../helpers/app.ts'
import { PASSWORD, uniqueEmail } from '../helpers/factories.ts'

const lines: string[] = []
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean))
    done()
  },
})
const dataDir = mkdtempSync(join(tmpdir(), 'wp-logs-'))
let app: FastifyInstance
let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
  // Production refuses the outbox and the dev chain: the mailer of a production process is stood
  // in for by the outbox in its production form (it keeps the mail and prints only who it is for).
  const config = loadConfig({ ...TEST_ENV, LOG_LEVEL: 'info', DATA_DIR: dataDir })
  const logger = pino({ level: 'info' }, sink)
  app = await buildApp({
    config,
    database,
    clock: new ManualClock(),
    logger,
    mailer: createOutboxMailer(database.db, logger, { printText: false }),
  })
  await app.ready()
})
afterAll(async () => {
  await app?.close()
  await database?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const post = (url: string, payload: object, token?: string) =>
  app.inject({
    method: 'POST',
    url,
    payload,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  })

async function mailedCode(email: string): Promise<string> {
  await app.services.jobs.runUntilIdle()
  const mail = await database.db
    .selectFrom('mails')
    .select('text')
    .where('toAddress', '=', email)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()
  return /\b(\d{6})\b/.exec(mail.text)![1]!
}

describe('the production log', () => {
  it('holds no mailed code, password, token or file signature', async () => {
    const email = uniqueEmail('logs')
    const reg = await post('/v1/auth/create-account', {
      firstName: 'Log',
      lastName: 'Reader',
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    expect(reg.statusCode, reg.body).toBe(202)
    const code = await mailedCode(email)
    const verified = await post('/v1/auth/account/verify', {
      token: code,
      tempToken: reg.json().data.tempToken.token,
    })
    expect(verified.statusCode, verified.body).toBe(200)
    const token = verified.json().data.token as string

    const reset = await post('/v1/auth/password/reset', { email })
    expect(reset.statusCode).toBe(200)
    const resetCode = await mailedCode(email)

    const { payload, headers } = multipart([
      { name: 'file', filename: 'notes.txt', contentType: 'text/plain', data: Buffer.from('private notes') },
    ])
    const upload = await app.inject({
      method: 'POST',
      url: '/v1/upload/private',
      payload,
      headers: { ...headers, authorization: `Bearer ${token}` },
    })
    expect(upload.statusCode, upload.body).toBe(200)
    const signed = await app.inject({
      method: 'GET',
      url: `/v1/upload/url/${upload.json().data._id}`,
      headers: { authorization: `Bearer ${token}` },
    })
    const url = new URL(signed.json().data as string)
    const signature = url.searchParams.get('signature')!
    const download = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` })
    expect(download.statusCode).toBe(200)
    expect(download.body).toBe('private notes')

    // The mails were logged (who and what for), and so was every request.
    expect(lines.some((l) => l.includes('outbox mail') && l.includes(email))).toBe(true)
    expect(lines.some((l) => l.includes(url.pathname))).toBe(true)
    // A code as a number of its own (not six digits inside a timestamp).
    const asNumber = (c: string) => new RegExp(`(?<!\\d)${c}(?!\\d)`)
    for (const line of lines) {
      expect(line).not.toMatch(asNumber(code))
      expect(line).not.toMatch(asNumber(resetCode))
      expect(line).not.toContain(PASSWORD)
      expect(line).not.toContain(token)
      expect(line).not.toContain(signature)
    }
  })
})
