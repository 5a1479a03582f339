// The outgoing-call safety rules: which addresses are public, a host name checked on every address
// it resolves to (real resolution of `localhost`), registration rules for endpoint URLs, and a POST
// in production mode refused before anything reaches a real local receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEndpointUrl } from '../../src/modules/webhooks/urls.ts'
import { isPublicAddress } from '../../src/platform/outbound/addresses.ts'
import { postJson, resolveTarget } from '../../src/platform/outbound/post.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const production = { publicOnly: true, httpsOnly: true, timeoutMs: 5_000 }
const development = { publicOnly: false, httpsOnly: false, timeoutMs: 5_000 }

describe('isPublicAddress', () => {
  it('refuses private, loopback, link-local, unique-local and other non-public ranges', () => {
    for (const a of [
      '10.0.0.1',
      '10.255.255.255',
      '127.0.0.1',
      '127.8.9.10',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456:789a::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2001:db8::1',
      '2002:a00:1::1',
      'not-an-address',
    ])
      expect(isPublicAddress(a), a).toBe(false)
  })

  it('takes addresses on the public internet', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '2a00:1450::1',
    ])
      expect(isPublicAddress(a), a).toBe(true)
  })
})

describe('resolveTarget', () => {
  it('checks every address a host name resolves to', async () => {
    // a real resolution: localhost is loopback
    const local = await resolveTarget(new URL('https://localhost/hook'), production)
    expect(local).toEqual({ refused: expect.stringMatching(/localhost resolves to .* not a public address/) })
    // one private address among public ones is enough to refuse
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]
    expect(await resolveTarget(new URL('https://shop.example.com/'), production, mixed)).toEqual({
      refused: expect.stringContaining('10.1.2.3'),
    })
    const v6 = async () => [{ address: 'fd00::5', family: 6 }]
    expect(await resolveTarget(new URL('https://shop.example.com/'), production, v6)).toHaveProperty(
      'refused',
    )
    const linkLocal = async () => [{ address: '169.254.169.254', family: 4 }]
    expect(await resolveTarget(new URL('https://metadata.example/'), production, linkLocal)).toHaveProperty(
      'refused',
    )
    const pub = async () => [{ address: '93.184.216.34', family: 4 }]
    expect(await resolveTarget(new URL('https://shop.example.com/'), production, pub)).toEqual({
      addresses: [{ address: '93.184.216.34', family: 4 }],
    })
  })

  it('refuses IP literals that are not public and plain http in production', async () => {
    for (const url of [
      'https://10.0.0.8/',
      'https://127.0.0.1:8443/',
      'https://[::1]/',
      'https://[fc00::2]/',
    ])
      expect(await resolveTarget(new URL(url), production), url).toHaveProperty('refused')
    expect(await resolveTarget(new URL('http://93.184.216.34/'), production)).toEqual({
      refused: expect.stringContaining('use https'),
    })
    expect(await resolveTarget(new URL('http://127.0.0.1:9/'), development)).toEqual({
      addresses: [{ address: '127.0.0.1', family: 4 }],
    })
  })
})

describe('postJson against a real local receiver', () => {
  let r: Receiver
  beforeAll(async () => {
    r = await startReceiver()
  })
  afterAll(() => r.close())

  it('in production mode, refuses a loopback receiver before sending anything', async () => {
    const before = r.received.length
    const https = r.url().replace('http://', 'https://')
    expect(await postJson(https, '{}', {}, production)).toMatchObject({ kind: 'refused' })
    expect(await postJson(r.url(), '{}', {}, production)).toMatchObject({ kind: 'refused' })
    expect(r.received.length).toBe(before)
  })

  it('in development, posts to localhost and keeps only an excerpt of the answer', async () => {
    r.answers.push(500)
    const res = await postJson(
      r.url('/x?y=1'),
      '{"a":1}',
      { 'x-test': '1' },
      { ...development, excerptBytes: 64 },
    )
    expect(res).toMatchObject({ kind: 'answered', status: 500 })
    expect(res.kind === 'answered' && res.excerpt.length).toBeLessThanOrEqual(64)
    const got = r.received.at(-1)!
    expect(got).toMatchObject({ path: '/x?y=1', body: '{"a":1}' })
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-test']).toBe('1')
  })

  it('does not follow redirects and gives up at the deadline', async () => {
    r.answers.push(302)
    expect(await postJson(r.url(), '{}', {}, development)).toMatchObject({ kind: 'answered', status: 302 })
    // nothing listens on port 9 of loopback: a failure, not an exception
    expect(await postJson('http://127.0.0.1:9/', '{}', {}, development)).toMatchObject({ kind: 'failed' })
    r.answers.push(0)
    const started = Date.now()
    expect(await postJson(r.url(), '{}', {}, { ...development, timeoutMs: 300 })).toEqual({
      kind: 'failed',
      reason: 'no answer within 300 ms',
    })
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})

describe('checkEndpointUrl', () => {
  const bad = (url: string, prod: boolean) => expect(() => checkEndpointUrl(url, prod), url).toThrow()
  it('production: https on a public host only', () => {
    for (const url of [
      'http://shop.example.com/hook',
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://printer.local/hook',
      'https://intranet/hook',
      'https://user:pw@shop.example.com/hook',
      'https://shop.example.com/hook#x',
      'ftp://shop.example.com/hook',
      'not a url',
    ])
      bad(url, true)
    expect(checkEndpointUrl('https://shop.example.com/hook?k=1', true)).toBe(
      'https://shop.example.com/hook?k=1',
    )
  })
  it('production: a host is what it resolves to, however it is spelled', () => {
    for (const url of [
      'https://localhost./hook',
      'https://LOCALHOST/hook',
      'https://LOCALHOST./hook',
      'https://localhost../hook',
      'https://%6cocalhost/hook',
      'https://%6C%4FCALHOST./hook',
      'https://ｌｏｃａｌｈｏｓｔ/hook',
      'https://api.localhost./hook',
      'https://Printer.Local./hook',
      'https://metadata.google.internal./hook',
      'https://intranet./hook',
      'https://127.0.0.1./hook',
      'https://0x7f.1/hook',
      'https://2130706433/hook',
      'https://10.1.2.3./hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[0:0:0:0:0:0:0:1]/hook',
    ])
      bad(url, true)
    // a public name written fully qualified is still taken
    expect(checkEndpointUrl('https://Shop.Example.com./hook', true)).toBe('https://shop.example.com./hook')
  })
  it('every spelling of localhost resolves to loopback at delivery, and is refused there', async () => {
    for (const url of ['https://localhost./hook', 'https://LOCALHOST./hook', 'https://%6cocalhost./hook'])
      expect(await resolveTarget(new URL(url), production), url).toEqual({
        refused: expect.stringMatching(/resolves to .* not a public address/),
      })
  })
  it('development: also http://localhost, but no other http', () => {
    expect(checkEndpointUrl('http://localhost:4000/hook', false)).toBe('http://localhost:4000/hook')
    expect(checkEndpointUrl('http://127.0.0.1:4000/hook', false)).toBe('http://127.0.0.1:4000/hook')
    expect(checkEndpointUrl('http://LOCALHOST.:4000/hook', false)).toBe('http://localhost.:4000/hook')
    bad('http://shop.example.com/hook', false)
    bad('http://10.0.0.1/hook', false)
  })
})
