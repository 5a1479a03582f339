// The stored form of a one-time code: `<key id>.<hex HMAC>` under the codes' own key (CODES_SECRET),
// checked with the key it names only; a hash from before key ids is checked with JWT_SECRET's
// secrets, as it was made; a key id no longer accepted never matches.
import { describe, expect, it } from 'vitest'
import { ManualClock } from '../../src/platform/clock.ts'
import { CODES_KEY_LABEL, CodeHasher, hashCode } from '../../src/platform/crypto/codes.ts'
import { DerivedKeyRing } from '../../src/platform/crypto/key-ring.ts'

const OLD = 'codes-root-old-codes-root-old-codes-0123'
const NEW = 'codes-root-new-codes-root-new-codes-0123'
const JWT = 'jwt-secret-jwt-secret-jwt-secret-0123456'

const hasher = (clock: ManualClock, current: string, previous?: string) =>
  new CodeHasher(
    new DerivedKeyRing(
      { current, previous, previousUntil: previous ? new Date(clock.now().getTime() + 3600_000) : undefined },
      CODES_KEY_LABEL,
      clock,
    ),
    () => [JWT],
  )

describe('CodeHasher', () => {
  it('names its key, matches only the right code, and follows a rotation of its root', () => {
    const clock = new ManualClock()
    const before = hasher(clock, OLD)
    const stored = before.hash('123456')
    expect(stored).toMatch(/^[A-Za-z0-9_-]{8}\.[0-9a-f]{64}$/)
    // keyed with the derived key, never with the root itself or JWT_SECRET
    expect(stored.split('.')[1]).not.toBe(hashCode(OLD, '123456'))
    expect(before.matches('123456', stored)).toBe(true)
    expect(before.matches('123457', stored)).toBe(false)

    const during = hasher(clock, NEW, OLD)
    expect(during.matches('123456', stored)).toBe(true)
    expect(during.hash('123456').split('.')[0]).not.toBe(stored.split('.')[0])
    expect(hasher(clock, NEW).matches('123456', stored)).toBe(false)
    clock.advance(3600_000 + 1)
    expect(during.matches('123456', stored)).toBe(false)
  })

  it('checks a hash stored before key ids with JWT_SECRET, and refuses a forged key id', () => {
    const clock = new ManualClock()
    const h = hasher(clock, NEW)
    expect(h.matches('654321', hashCode(JWT, '654321'))).toBe(true)
    expect(h.matches('654321', hashCode('another-secret-another-secret-012345', '654321'))).toBe(false)
    const stored = h.hash('654321')
    expect(h.matches('654321', `AAAAAAAA.${stored.split('.')[1]}`)).toBe(false)
    expect(h.matches('654321', `${stored.split('.')[0]}.zz`)).toBe(false)
  })
})
