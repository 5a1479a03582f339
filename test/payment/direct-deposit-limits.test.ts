// Direct deposits are public: orders and checks are limited per client IP (429 RATE_LIMITED with
// Retry-After), malformed requests counted too, and the limit holds whatever email or address the
// requests carry.
import { describe, expect, it } from 'vitest'
import { depositScene, expectError, freshAddress, payerEmail } from './direct-deposit-helpers.ts'

const S = depositScene({ RATE_LIMIT_WRITES_SCALE: '1', RATE_LIMIT_WRITES: 'deposits=3/3,depositchecks=4/4' })
const { order, validate, newCollection } = S

describe('limits per client IP', () => {
  it('refuses a fourth order within the hour, whatever the payer', async () => {
    const id = await newCollection()
    const first = await order({ collection: id, amount: 100, coin: 'usdc', email: payerEmail() })
    expect(first.statusCode, first.body).toBe(200)
    // a malformed one counts too, and so does one refused for the collection's state
    expectError(await order({ collection: id }), 400, 'VALIDATION_ERROR')
    expectError(
      await order({ collection: id, amount: 100, coin: 'usdc', address: freshAddress() }),
      409,
      'PAYMENT_ORDER_PENDING',
    )
    const over = await order({
      collection: await newCollection(),
      amount: 100,
      coin: 'usdc',
      email: payerEmail(),
    })
    expectError(over, 429, 'RATE_LIMITED')
    const retryAfter = Number(over.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(over.json().data.retryAfter).toBe(retryAfter)
  })

  it('refuses a fifth check within the minute', async () => {
    const id = 'a'.repeat(24)
    for (let i = 0; i < 4; i++) expectError(await validate({ collection: id }), 404, 'NOT_FOUND')
    const over = await validate({ collection: id })
    expectError(over, 429, 'RATE_LIMITED')
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60)
  })
})
