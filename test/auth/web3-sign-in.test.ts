// Wallet sign-in with a signed message (#11): a returning wallet's permanent token, signatures by
// another key or over another message, replays, concurrency, expiry, tempTokens of other purposes,
// the signature field, two-factor, and no password login for a wallet account.
import { SiweMessage } from 'siwe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import { authFlows, wallet } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, requestMessage, signIn, onboardedWallet, accountsOfWallet } = authFlows(() => t)

describe('POST /v1/auth/web3/validate (#11) and /onboard (#12)', () => {
  it('a returning onboarded, verified wallet gets the permanent token directly (200)', async () => {
    const { acct, token } = await onboardedWallet()
    const me1 = (await t.req({ method: 'GET', url: '/v1/account', token })).json().data

    const res = await signIn(acct)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        account: acct.address,
        token: expect.any(String),
        token_type: 'jwt',
        expiresIn: expect.any(Number),
        isVerified: true,
      },
    })
    const data = res.json().data
    // The permanent token expires far in the future (ten years, Unix ms).
    expect(data.expiresIn - t.clock.now().getTime()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000)
    const me2 = await t.req({ method: 'GET', url: '/v1/account', token: data.token })
    expect(me2.statusCode).toBe(200)
    expect(me2.json().data._id).toBe(me1._id)

    // One account per wallet.
    const rows = await accountsOfWallet(acct.address)
    expect(rows).toHaveLength(1)
  })

  it('refuses a signature by another key with INVALID_CREDENTIALS; the message can still be signed', async () => {
    const acct = wallet()
    const { message, tempToken } = await requestMessage(acct.address)
    const wrong = await wallet().signMessage({ message })
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage: wrong, tempToken: tempToken.token }),
      401,
      'INVALID_CREDENTIALS',
    )
    const right = await acct.signMessage({ message })
    const res = await post('/v1/auth/web3/validate', { signedMessage: right, tempToken: tempToken.token })
    expect(res.statusCode, res.body).toBe(202)
  })

  it('refuses a signature over a changed message', async () => {
    const acct = wallet()
    const { message, tempToken } = await requestMessage(acct.address)
    const other = await requestMessage(acct.address)
    for (const changed of [
      message.replace('Approve this request', 'Approve that request'),
      message.replace(/Nonce: \w+/, `Nonce: ${new SiweMessage(other.message).nonce}`),
      other.message,
      `${message}\n`,
    ]) {
      expect(changed).not.toBe(message)
      const signedMessage = await acct.signMessage({ message: changed })
      expectError(
        await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token }),
        401,
        'INVALID_CREDENTIALS',
      )
    }
  })

  it('refuses a replayed signature and tempToken', async () => {
    const acct = wallet()
    const { message, tempToken } = await requestMessage(acct.address)
    const signedMessage = await acct.signMessage({ message })
    const first = await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token })
    expect(first.statusCode).toBe(202)
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token }),
      401,
      'UNAUTHENTICATED',
    )
    // Also for a verified account: a replay never yields a second session.
    const { acct: known } = await onboardedWallet()
    const m = await requestMessage(known.address)
    const sig = await known.signMessage({ message: m.message })
    expect(
      (await post('/v1/auth/web3/validate', { signedMessage: sig, tempToken: m.tempToken.token })).statusCode,
    ).toBe(200)
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage: sig, tempToken: m.tempToken.token }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('signs in once when the same wallet validates two messages at the same time', async () => {
    const acct = wallet()
    const [a, b] = await Promise.all([requestMessage(acct.address), requestMessage(acct.address)])
    const [sa, sb] = await Promise.all([
      acct.signMessage({ message: a.message }),
      acct.signMessage({ message: b.message }),
    ])
    const [ra, rb] = await Promise.all([
      post('/v1/auth/web3/validate', { signedMessage: sa, tempToken: a.tempToken.token }),
      post('/v1/auth/web3/validate', { signedMessage: sb, tempToken: b.tempToken.token }),
    ])
    expect([ra.statusCode, rb.statusCode], ra.body + rb.body).toEqual([202, 202])
    const rows = await accountsOfWallet(acct.address)
    expect(rows).toHaveLength(1)
  })

  it('refuses an expired message', async () => {
    const acct = wallet()
    const { message, tempToken } = await requestMessage(acct.address)
    const signedMessage = await acct.signMessage({ message })
    t.clock.advance(15 * 60_000 + 1000)
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('refuses tempTokens of another purpose at each step', async () => {
    const acct = wallet()
    const { message, tempToken: signToken } = await requestMessage(acct.address)
    const signedMessage = await acct.signMessage({ message })
    // A sign-in tempToken cannot onboard.
    expectError(
      await post('/v1/auth/web3/onboard', {
        tempToken: signToken.token,
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
      }),
      401,
      'UNAUTHENTICATED',
    )
    const res = await post('/v1/auth/web3/validate', { signedMessage, tempToken: signToken.token })
    expect(res.statusCode).toBe(202)
    const onboardToken = res.json().data.tempToken.token
    // An onboarding tempToken cannot validate a signature.
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: onboardToken }),
      401,
      'UNAUTHENTICATED',
    )
    // An email registration's tempToken cannot onboard or validate.
    const email = uniqueEmail()
    const reg = await post('/v1/auth/create-account', {
      firstName: 'E',
      lastName: 'M',
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    const verifyToken = reg.json().data.tempToken.token
    expectError(
      await post('/v1/auth/web3/onboard', { tempToken: verifyToken, firstName: 'A', lastName: 'B', email }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: verifyToken }),
      401,
      'UNAUTHENTICATED',
    )
    // A permanent token is not a tempToken.
    const user = await createUser(t)
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: user.token }),
      401,
      'UNAUTHENTICATED',
    )
    // A web3_onboard tempToken is not accepted by #2.
    expectError(
      await post('/v1/auth/account/verify', { token: '123456', tempToken: onboardToken }),
      401,
      'UNAUTHENTICATED',
    )
    // Forged or garbage tokens.
    const [h, p] = signToken.token.split('.')
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: `${h}.${p}.${'A'.repeat(43)}` }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage, tempToken: 'not-a-jwt-at-all' }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('validates the signature field: malformed is 400, well-formed but not a signature is 401', async () => {
    const acct = wallet()
    const { tempToken } = await requestMessage(acct.address)
    for (const signedMessage of ['', 'xyz', '0x', '0x123', `0x${'zz'.repeat(65)}`, 42, null]) {
      expectError(
        await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token }),
        400,
        'VALIDATION_ERROR',
      )
    }
    for (const signedMessage of [
      '0x1234',
      `0x${'00'.repeat(65)}`,
      `0x${'ff'.repeat(65)}`,
      `0x${'ab'.repeat(64)}`,
    ]) {
      expectError(
        await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token }),
        401,
        'INVALID_CREDENTIALS',
      )
    }
    expectError(await post('/v1/auth/web3/validate', { tempToken: tempToken.token }), 400, 'VALIDATION_ERROR')
    expectError(
      await post('/v1/auth/web3/validate', { signedMessage: '0x1234', tempToken: tempToken.token, x: 1 }),
      400,
      'VALIDATION_ERROR',
    )
  })

  it('a verified wallet with two-factor on gets the login challenge, then the token with the code', async () => {
    const { acct, email, token } = await onboardedWallet()
    const init = await t.req({
      method: 'POST',
      url: '/v1/account/initiate/2fa',
      payload: { type: 'email' },
      token,
    })
    expect(init.statusCode, init.body).toBe(202)
    const act = await t.req({
      method: 'POST',
      url: '/v1/account/activate/2fa',
      payload: { code: await lastCode(t, email) },
      token,
    })
    expect(act.statusCode, act.body).toBe(200)

    const res = await signIn(acct)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toEqual({
      twoFaRequired: true,
      twoFaType: 'email',
      tempToken: expect.any(Object),
    })
    expect(res.json().data.token).toBeUndefined()
    const done = await post('/v1/auth/login/2fa', {
      tempToken: res.json().data.tempToken.token,
      code: await lastCode(t, email),
    })
    expect(done.statusCode, done.body).toBe(200)
    expect(done.json().data).toMatchObject({ email, accountType: 'web3', token: expect.any(String) })
  })

  it('a wallet account has no password: email login is refused', async () => {
    const { email } = await onboardedWallet()
    expectError(await post('/v1/auth/login', { email, password: PASSWORD }), 401, 'INVALID_CREDENTIALS')
  })
})
