// WEBAUTHN_ORIGIN and WEBAUTHN_RP_ID: defaults from PUBLIC_URL outside production (a loopback IP
// read as localhost), required and validated in production, and every bad value named.
import { describe, expect, it } from 'vitest'
import { webauthnConfig } from '../../src/config-webauthn.ts'

function read(env: Record<string, string>, production = false, publicUrl = 'http://127.0.0.1:3000') {
  const problems: string[] = []
  const config = webauthnConfig((n) => env[n], production, publicUrl, problems)
  return { config, problems }
}

describe('WebAuthn relying party', () => {
  it('defaults from PUBLIC_URL, a loopback IP read as localhost', () => {
    expect(read({}).config).toMatchObject({ origin: 'http://localhost:3000', rpId: 'localhost' })
    expect(read({}, false, 'https://console.example.com/base').config).toMatchObject({
      origin: 'https://console.example.com',
      rpId: 'console.example.com',
    })
    expect(read({}).problems).toEqual([])
  })

  it('takes a parent domain as RP ID, and refuses one the origin is not under', () => {
    const ok = read({ WEBAUTHN_ORIGIN: 'https://ops.example.com', WEBAUTHN_RP_ID: 'example.com' }, true)
    expect(ok).toEqual({
      config: { origin: 'https://ops.example.com', rpId: 'example.com', rpName: 'WorkPay operator console' },
      problems: [],
    })
    expect(
      read({ WEBAUTHN_ORIGIN: 'https://ops.example.com', WEBAUTHN_RP_ID: 'other.com' }, true).problems,
    ).toEqual([
      'WEBAUTHN_RP_ID (other.com) must be the host of WEBAUTHN_ORIGIN (ops.example.com) or a parent domain of it',
    ])
    // (a suffix that is not a whole label is not a parent domain)
    expect(
      read({ WEBAUTHN_ORIGIN: 'https://badexample.com', WEBAUTHN_RP_ID: 'example.com' }).problems,
    ).toHaveLength(1)
  })

  it('in production: both required, https (or http://localhost), no IP address, an origin only', () => {
    expect(read({}, true).problems).toEqual([
      'WEBAUTHN_ORIGIN is required when NODE_ENV=production',
      'WEBAUTHN_RP_ID is required when NODE_ENV=production',
    ])
    expect(
      read({ WEBAUTHN_ORIGIN: 'http://ops.example.com', WEBAUTHN_RP_ID: 'ops.example.com' }, true).problems,
    ).toEqual(['WEBAUTHN_ORIGIN must be an https origin when NODE_ENV=production (http only on localhost)'])
    expect(
      read({ WEBAUTHN_ORIGIN: 'http://localhost:3000', WEBAUTHN_RP_ID: 'localhost' }, true).problems,
    ).toEqual([])
    expect(read({ WEBAUTHN_ORIGIN: 'https://10.0.0.5', WEBAUTHN_RP_ID: '10.0.0.5' }, true).problems).toEqual([
      'WEBAUTHN_RP_ID must be a domain name, not an IP address or URL (got "10.0.0.5")',
    ])
    expect(
      read({ WEBAUTHN_ORIGIN: 'https://ops.example.com/admin', WEBAUTHN_RP_ID: 'ops.example.com' }, true)
        .problems,
    ).toEqual([
      'WEBAUTHN_ORIGIN must be an origin only, scheme://host[:port] (got "https://ops.example.com/admin")',
    ])
    expect(read({ WEBAUTHN_ORIGIN: 'not a url', WEBAUTHN_RP_ID: 'example.com' }, true).problems).toEqual([
      'WEBAUTHN_ORIGIN must be an origin such as https://console.example.com (got "not a url")',
    ])
  })

  it('outside production, http only on loopback', () => {
    expect(read({ WEBAUTHN_ORIGIN: 'http://ops.example.com' }).problems).toEqual([
      'WEBAUTHN_ORIGIN must be https (http only on localhost or a loopback address)',
    ])
  })
})
