// The session cache's rules without a database: what is stored, what is dropped, and when it is
// bypassed; and the HS256 checks of the token verifier.
import { createHmac } from 'node:crypto'
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { SessionCache } from '../../src/modules/auth/session-cache.ts'
import { TokenService } from '../../src/modules/auth/tokens.ts'
import { ManualClock } from '../../src/platform/clock.ts'

const s1 = { userId: 'u1', sessionId: 's1' }

function listening(opts: ConstructorParameters<typeof SessionCache>[0] = {}) {
  const c = new SessionCache(opts)
  c.setListening(true)
  return c
}

describe('SessionCache', () => {
  it('stores nothing until it listens, and drops everything when the connection is lost', () => {
    const c = new SessionCache()
    c.put(s1, c.epoch())
    expect(c.get('s1')).toBeUndefined()
    c.setListening(true)
    c.put(s1, c.epoch())
    expect(c.get('s1')).toMatchObject(s1)
    c.setListening(false)
    expect(c.get('s1')).toBeUndefined()
    c.setListening(true)
    expect(c.get('s1')).toBeUndefined()
  })

  it('does not store a lookup that raced with a change', () => {
    const c = listening()
    const epoch = c.epoch()
    c.notified(`other:u2`)
    c.put(s1, epoch)
    expect(c.get('s1')).toBeUndefined()
  })

  it('a notification drops every session of the account and only that account', () => {
    const c = listening()
    c.put(s1, c.epoch())
    c.put({ userId: 'u1', sessionId: 's2' }, c.epoch())
    c.put({ userId: 'u3', sessionId: 's3' }, c.epoch())
    c.notified('other:u1')
    expect(c.get('s1')).toBeUndefined()
    expect(c.get('s2')).toBeUndefined()
    expect(c.get('s3')).toMatchObject({ userId: 'u3' })
  })

  it('an account changed by this process bypasses the cache until its own notification returns', () => {
    let now = 0
    const c = listening({ now: () => now, pendingMs: 1000 })
    c.changing('u1')
    c.changing('u1')
    c.put(s1, c.epoch())
    expect(c.get('s1')).toBeUndefined()
    // Another process's notification does not end this process's pending changes.
    c.notified('other:u1')
    c.put(s1, c.epoch())
    expect(c.get('s1')).toBeUndefined()
    c.notified(`${c.origin}:u1`)
    c.put(s1, c.epoch())
    expect(c.get('s1')).toBeUndefined()
    c.notified(`${c.origin}:u1`)
    c.put(s1, c.epoch())
    expect(c.get('s1')).toMatchObject(s1)
    // A change rolled back (no notification) stops bypassing after pendingMs.
    c.changing('u9')
    now = 1001
    c.put({ userId: 'u9', sessionId: 's9' }, c.epoch())
    expect(c.get('s9')).toMatchObject({ userId: 'u9' })
  })

  it('entries age out and the oldest go first when full', () => {
    let now = 0
    const c = listening({ now: () => now, ttlMs: 100, max: 2 })
    c.put(s1, c.epoch())
    c.put({ userId: 'u2', sessionId: 's2' }, c.epoch())
    c.put({ userId: 'u3', sessionId: 's3' }, c.epoch())
    expect(c.get('s1')).toBeUndefined()
    expect(c.size).toBe(2)
    now = 101
    expect(c.get('s2')).toBeUndefined()
  })
})

describe('TokenService.verifyAccess', () => {
  const secret = 'test-secret-test-secret-test-secret-0123'
  const clock = new ManualClock()
  const tokens = new TokenService(secret, clock)
  const key = new TextEncoder().encode(secret)
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const hs256 = (h: unknown, p: unknown) => {
    const head = `${b64(h)}.${b64(p)}`
    return `${head}.${createHmac('sha256', key).update(head).digest('base64url')}`
  }
  const now = () => Math.floor(clock.now().getTime() / 1000)
  const claims = () => ({ typ: 'access', iss: 'workpay', sub: 'u1', jti: 's1', exp: now() + 60 })

  it('accepts its own tokens', async () => {
    const t = await tokens.access('u1', 's1')
    expect(tokens.verifyAccess(t.token)).toEqual({ userId: 'u1', sessionId: 's1' })
    expect(tokens.verifyAccess(hs256({ alg: 'HS256', typ: 'JWT' }, claims()))).toEqual({
      userId: 'u1',
      sessionId: 's1',
    })
  })

  it('refuses a wrong signature, another algorithm, critical headers and malformed tokens', async () => {
    const t = (await tokens.access('u1', 's1')).token
    const [h, p] = t.split('.')
    expect(tokens.verifyAccess(`${h}.${p}.${'A'.repeat(43)}`)).toBeUndefined()
    expect(tokens.verifyAccess(`${b64({ alg: 'none' })}.${p}.`)).toBeUndefined()
    expect(tokens.verifyAccess(hs256({ alg: 'HS512' }, claims()))).toBeUndefined()
    expect(tokens.verifyAccess(hs256({ alg: 'HS256', crit: ['x'], x: 1 }, claims()))).toBeUndefined()
    expect(tokens.verifyAccess('a.b')).toBeUndefined()
    expect(tokens.verifyAccess('a.b.c.d')).toBeUndefined()
    expect(tokens.verifyAccess(`${h}.${p}.${t.split('.')[2]}=`)).toBeUndefined()
    const other = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32))
    expect(tokens.verifyAccess(other)).toBeUndefined()
  })

  it('refuses expired, not-yet-valid, foreign-issuer, temporary and claim-less tokens', () => {
    const h = { alg: 'HS256' }
    expect(tokens.verifyAccess(hs256(h, { ...claims(), exp: now() }))).toBeUndefined()
    expect(tokens.verifyAccess(hs256(h, { ...claims(), nbf: now() + 10 }))).toBeUndefined()
    expect(tokens.verifyAccess(hs256(h, { ...claims(), iss: 'someone' }))).toBeUndefined()
    expect(tokens.verifyAccess(hs256(h, { ...claims(), typ: 'temp' }))).toBeUndefined()
    const { exp: _e, ...noExp } = claims()
    expect(tokens.verifyAccess(hs256(h, noExp))).toBeUndefined()
    const { jti: _j, ...noJti } = claims()
    expect(tokens.verifyAccess(hs256(h, noJti))).toBeUndefined()
    expect(tokens.verifyAccess(hs256(h, { ...claims(), sub: 5 }))).toBeUndefined()
    expect(tokens.verifyAccess(hs256(h, [1, 2]))).toBeUndefined()
  })

  it('keeps refusing a token once it expires, though it was accepted (and remembered) before', () => {
    const token = hs256({ alg: 'HS256' }, claims())
    expect(tokens.verifyAccess(token)).toEqual({ userId: 'u1', sessionId: 's1' })
    expect(tokens.verifyAccess(token)).toEqual({ userId: 'u1', sessionId: 's1' })
    clock.advance(61_000)
    expect(tokens.verifyAccess(token)).toBeUndefined()
    expect(tokens.verifyAccess(token)).toBeUndefined()
  })

  it('refuses a remembered token with one character changed, and still checks tokens past the memory size', () => {
    const token = hs256({ alg: 'HS256' }, claims())
    expect(tokens.verifyAccess(token)).toBeDefined()
    // The signature's second-to-last character: its last one carries two unused bits, and some
    // changes to it decode to the same signature.
    const changed = token.at(-2) === 'A' ? 'B' : 'A'
    expect(tokens.verifyAccess(`${token.slice(0, -2)}${changed}${token.at(-1)}`)).toBeUndefined()
    const many = Array.from({ length: 10_050 }, (_, i) =>
      hs256({ alg: 'HS256' }, { ...claims(), jti: `s${i}` }),
    )
    for (const [i, t] of many.entries()) expect(tokens.verifyAccess(t)?.sessionId).toBe(`s${i}`)
    // The oldest were let go and are verified afresh; a forged one among them is still refused.
    expect(tokens.verifyAccess(many[0]!)?.sessionId).toBe('s0')
    const second = many[1]!
    expect(
      tokens.verifyAccess(`${second.slice(0, -2)}${second.at(-2) === 'A' ? 'B' : 'A'}${second.at(-1)}`),
    ).toBeUndefined()
  })
})
