import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createSecretBox } from '../../src/platform/crypto/secrets.ts'

describe('secret box', () => {
  const k1 = randomBytes(32)
  const k2 = randomBytes(32)

  it('round-trips and never contains the plaintext', () => {
    const box = createSecretBox({ k1 }, 'k1')
    const secret = `0x${'ab'.repeat(32)}`
    const sealed = box.seal(secret, 'addr')
    expect(sealed).not.toContain(secret)
    expect(sealed.startsWith('v1.k1.')).toBe(true)
    expect(box.open(sealed, 'addr')).toBe(secret)
    expect(box.seal(secret, 'addr')).not.toBe(sealed)
  })

  it('refuses tampering and a wrong associated value', () => {
    const box = createSecretBox({ k1 }, 'k1')
    const sealed = box.seal('secret', 'a')
    expect(() => box.open(sealed, 'b')).toThrow()
    const parts = sealed.split('.')
    const body = Buffer.from(parts[3]!, 'base64url')
    body[body.length - 1]! ^= 1
    parts[3] = body.toString('base64url')
    expect(() => box.open(parts.join('.'), 'a')).toThrow()
  })

  it('opens secrets sealed under an earlier key after a rotation', () => {
    const old = createSecretBox({ k1 }, 'k1').seal('kept', '')
    const rotated = createSecretBox({ k1, k2 }, 'k2')
    expect(rotated.open(old, '')).toBe('kept')
    expect(rotated.seal('new', '').startsWith('v1.k2.')).toBe(true)
    expect(() => createSecretBox({ k2 }, 'k2').open(old, '')).toThrow(/k1/)
  })
})
