// The SMTP mailer against a real SMTP server (smtp-server) on loopback, mails parsed by mailparser.
import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { PASSWORD, uniqueEmail } from '../helpers/factories.ts'

interface Received {
  from: string
  to: string[]
  raw: Buffer
}
let server: SMTPServer
let port: number
const inbox: Received[] = []
let t: TestApp

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.server.address() as AddressInfo).port
  t = await createTestApp({
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'WorkPay <no-reply@workpay.test>' },
  })
})
afterAll(async () => {
  await t.close()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe('SMTP mail', () => {
  it('delivers the verification code in the text and the HTML part, and keeps nothing in the outbox', async () => {
    expect(t.app.services.mailer.kind).toBe('smtp')
    const email = uniqueEmail('smtp')
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: {
        firstName: 'Grace',
        lastName: 'Hopper',
        email,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    })
    expect(res.statusCode).toBe(202)
    await t.drain()
    const got = inbox.filter((m) => m.to.includes(email))
    expect(got).toHaveLength(1)
    expect(got[0]!.from).toBe('no-reply@workpay.test')
    const parsed = await simpleParser(got[0]!.raw)
    const code = parsed.text!.match(/\b(\d{6})\b/)![1]!
    expect(parsed.html).toContain(code)
    expect(parsed.subject).toMatch(/verify/i)
    const outbox = await t.database.db.selectFrom('mails').select('id').execute()
    expect(outbox).toHaveLength(0)
    // the code from the real mail verifies the account
    const ok = await t.req({
      method: 'POST',
      url: '/v1/auth/account/verify',
      payload: { token: code, tempToken: res.json().data.tempToken.token },
    })
    expect(ok.statusCode).toBe(200)
    // a delivered mail job leaves no copy of the code behind
    const jobs = await t.database.db.selectFrom('jobs').select('id').where('kind', '=', 'mail.send').execute()
    expect(jobs).toHaveLength(0)
  })

  it('retries a mail when the relay is down, and delivers it once it is back', async () => {
    const email = uniqueEmail('retry')
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/verify/resend',
      payload: { email },
    })
    expect(res.statusCode).toBe(200)
    // unknown email: nothing is queued at all, so register a real one while the relay is down
    const reg = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: { firstName: 'Retry', lastName: 'Me', email, password: PASSWORD, confirmPassword: PASSWORD },
    })
    expect(reg.statusCode).toBe(202)
    await t.drain()
    const job = await t.database.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'mail.send')
      .executeTakeFirstOrThrow()
    expect(job.status).toBe('queued')
    expect(job.attempts).toBe(1)
    expect(job.lastError).toBeTruthy()
    // bring the relay back on the same port and let the backoff pass
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          inbox.push({
            from: '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
          })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    t.clock.advance(60_000)
    await t.drain()
    expect(inbox.filter((m) => m.to.includes(email))).toHaveLength(1)
  })
})
