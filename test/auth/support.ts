// Shared helpers of the auth tests: requests to the app of a test file, the token object the sign-in
// steps answer, an email registration, and a wallet's way through the sign-in steps.
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

/** A wallet of a fresh random key. */
export const wallet = () => privateKeyToAccount(generatePrivateKey())

/** Auth requests and checks on the app `app()` answers when they are called. */
export function authFlows(app: () => TestApp) {
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    app().req({ method: 'POST', url, payload: payload as object, headers })

  /** `{ token, token_type, expiresIn }` expiring after `now` (by default the app clock's time). */
  function expectTokenObject(tok: any, now?: number) {
    expect(tok).toEqual({ token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) })
    expect(Number.isInteger(tok.expiresIn)).toBe(true)
    expect(tok.expiresIn).toBeGreaterThan(now ?? app().clock.now().getTime())
    expect(tok.token.split('.')).toHaveLength(3)
  }

  /** #1: an email account, not verified yet, and its verification tempToken. */
  async function register(email = uniqueEmail(), password = PASSWORD) {
    const res = await post('/v1/auth/create-account', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email,
      password,
      confirmPassword: password,
    })
    expect(res.statusCode, res.body).toBe(202)
    return { email, password, tempToken: res.json().data.tempToken.token as string }
  }

  /** #10: the message to sign for `address` and its web3_sign tempToken. */
  async function requestMessage(address: string) {
    const res = await post('/v1/auth/web3/request', { account: address })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as { message: string; tempToken: { token: string; expiresIn: number } }
  }

  /** #10 then #11 with a real signature. */
  async function signIn(acct: PrivateKeyAccount) {
    const { message, tempToken } = await requestMessage(acct.address)
    const signedMessage = await acct.signMessage({ message })
    return post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token })
  }

  /** A wallet that went through #10–#12 and #2: returns its permanent token. */
  async function onboardedWallet(acct = wallet(), email = uniqueEmail('web3')) {
    const first = await signIn(acct)
    expect(first.statusCode, first.body).toBe(202)
    const onboard = await post('/v1/auth/web3/onboard', {
      tempToken: first.json().data.tempToken.token,
      firstName: 'Satoshi',
      lastName: 'Nakamoto',
      email,
    })
    expect(onboard.statusCode, onboard.body).toBe(200)
    const verify = await post('/v1/auth/account/verify', {
      token: await lastCode(app(), email),
      tempToken: onboard.json().data.tempToken.token,
    })
    expect(verify.statusCode, verify.body).toBe(200)
    return { acct, email, token: verify.json().data.token as string }
  }

  /** Every account row of a wallet address, live or deleted. */
  function accountsOfWallet(address: string) {
    return app()
      .database.db.selectFrom('users')
      .select(['id', 'deletedAt'])
      .where('web3Address', '=', address.toLowerCase())
      .execute()
  }

  return { post, expectTokenObject, register, requestMessage, signIn, onboardedWallet, accountsOfWallet }
}
