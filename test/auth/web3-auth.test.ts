import { SiweMessage } from 'siwe'
import { getAddress } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Web3Service } from '../../src/modules/auth/web3-service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, mailCount, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const post = (url: string, payload: unknown) => t.req({ method: 'POST', url, payload: payload as object })

function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status)
  const body = res.json()
  expect(body.status).toBe('error')
  expect(typeof body.message).toBe('string')
  expect(body.data.code).toBe(code)
}

function expectTokenObject(tok: any) {
  expect(tok).toEqual({ token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) })
  expect(Number.isInteger(tok.expiresIn)).toBe(true)
  expect(tok.expiresIn).toBeGreaterThan(t.clock.now().getTime())
  expect(tok.token.split('.')).toHaveLength(3)
}

type Web3Deps = ConstructorParameters<typeof Web3Service>[0]

const wallet = () => privateKeyToAccount(generatePrivateKey())

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
    token: await lastCode(t, email),
    tempToken: onboard.json().data.tempToken.token,
  })
  expect(verify.statusCode, verify.body).toBe(200)
  return { acct, email, token: verify.json().data.token as string }
}

describe('POST /v1/auth/web3/request (#10)', () => {
  it('answers an EIP-4361 message for the address and a web3_sign tempToken', async () => {
    const acct = wallet()
    const before = t.clock.now().getTime()
    const res = await post('/v1/auth/web3/request', { account: acct.address })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { message: expect.any(String), tempToken: expect.any(Object) },
    })
    expectTokenObject(body.data.tempToken)
    expect(body.data.tempToken.expiresIn - before).toBeGreaterThan(14 * 60_000)
    expect(body.data.tempToken.expiresIn - before).toBeLessThanOrEqual(15 * 60_000 + 5000)

    const siwe = new SiweMessage(body.data.message)
    const publicUrl = new URL(t.config.publicUrl)
    expect(siwe.domain).toBe(publicUrl.host)
    expect(siwe.uri).toBe(t.config.publicUrl)
    expect(siwe.address).toBe(acct.address)
    expect(siwe.version).toBe('1')
    expect(siwe.chainId).toBe(t.app.services.web3.chainId())
    expect(siwe.statement).toBe('Approve this request to sign in to WorkPay.')
    expect(siwe.nonce).toMatch(/^[0-9a-f]{32}$/)
    const issuedAt = Date.parse(siwe.issuedAt!)
    expect(issuedAt).toBeGreaterThanOrEqual(before)
    expect(Date.parse(siwe.expirationTime!) - issuedAt).toBe(15 * 60_000)
    // The message is what a wallet verifies too.
    const signature = await acct.signMessage({ message: body.data.message })
    const check = await siwe.verify({ signature }, { suppressExceptions: true })
    expect(check.success).toBe(true)
  })

  it("writes the chain adapter's chain id, and the dev chain's id when there is no adapter", () => {
    expect(t.app.services.web3.chainId()).toBe(t.app.services.chain.chainId)
    const bare = new Web3Service({ ...({} as Web3Deps), chain: () => undefined })
    expect(bare.chainId()).toBe(31337)
  })

  it('accepts an all lower-case address and writes it checksummed; nonces are never reused', async () => {
    const acct = wallet()
    const a = await requestMessage(acct.address.toLowerCase())
    const b = await requestMessage(acct.address.toLowerCase())
    const ma = new SiweMessage(a.message)
    const mb = new SiweMessage(b.message)
    expect(ma.address).toBe(acct.address)
    expect(ma.nonce).not.toBe(mb.nonce)
    expect(a.tempToken.token).not.toBe(b.tempToken.token)
  })

  it('refuses a mixed-case address with a wrong checksum', async () => {
    const addr = getAddress(wallet().address)
    // Flip the case of one letter: still 40 hex digits, no longer the EIP-55 checksum.
    const i = [...addr].findIndex((c, j) => j > 1 && /[a-fA-F]/.test(c))
    const c = addr[i]!
    const bad =
      addr.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + addr.slice(i + 1)
    const res = await post('/v1/auth/web3/request', { account: bad })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toBe('/account')
  })

  it('refuses anything that is not an address', async () => {
    const good = wallet().address
    for (const account of [
      '',
      'hello',
      good.slice(2),
      `${good}0`,
      good.slice(0, 41),
      `0X${good.slice(2)}`,
      `0x${'g'.repeat(40)}`,
      ` ${good}`,
      12345,
      null,
    ]) {
      expectError(await post('/v1/auth/web3/request', { account }), 400, 'VALIDATION_ERROR')
    }
    expectError(await post('/v1/auth/web3/request', {}), 400, 'VALIDATION_ERROR')
    expectError(await post('/v1/auth/web3/request', { account: good, extra: 1 }), 400, 'VALIDATION_ERROR')
  })
})

describe('POST /v1/auth/web3/validate (#11) and /onboard (#12)', () => {
  it('a new wallet: account created, onboarding, email code, permanent token', async () => {
    const acct = wallet()
    const email = uniqueEmail('web3')
    const res = await signIn(acct)
    expect(res.statusCode, res.body).toBe(202)
    const body = res.json()
    expect(body).toEqual({
      status: 'success',
      message: expect.stringMatching(/onboarding must be completed/i),
      data: { account: acct.address, tempToken: expect.any(Object) },
    })
    expectTokenObject(body.data.tempToken)

    const row = await t.database.db
      .selectFrom('users')
      .select(['id', 'web3Address', 'accountType', 'web3Onboard', 'email', 'emailVerified'])
      .where('web3Address', '=', acct.address.toLowerCase())
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ accountType: 'web3', web3Onboard: false, email: null, emailVerified: false })

    const onboard = await post('/v1/auth/web3/onboard', {
      tempToken: body.data.tempToken.token,
      firstName: ' Satoshi ',
      lastName: 'Nakamoto',
      email: email.toUpperCase(),
    })
    expect(onboard.statusCode, onboard.body).toBe(200)
    expect(onboard.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { tempToken: expect.any(Object), isVerified: false },
    })
    expectTokenObject(onboard.json().data.tempToken)
    expect(await mailCount(t, email)).toBe(1)

    // Onboarded, not verified yet: no way to an account with the onboarding tempToken.
    expectError(
      await t.req({ method: 'GET', url: '/v1/account', token: onboard.json().data.tempToken.token }),
      401,
      'UNAUTHENTICATED',
    )

    const verify = await post('/v1/auth/account/verify', {
      token: await lastCode(t, email),
      tempToken: onboard.json().data.tempToken.token,
    })
    expect(verify.statusCode, verify.body).toBe(200)
    expect(verify.json().data).toEqual({
      token: expect.any(String),
      token_type: 'jwt',
      expiresIn: expect.any(Number),
      isVerified: true,
    })

    const me = await t.req({ method: 'GET', url: '/v1/account', token: verify.json().data.token })
    expect(me.statusCode, me.body).toBe(200)
    expect(me.json().data).toMatchObject({
      _id: row.id,
      accountType: 'web3',
      web3Onboard: true,
      email,
      emailVerified: true,
      isVerified: true,
      firstName: 'Satoshi',
      lastName: 'Nakamoto',
      walletGenerated: true,
    })
  })

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
    const rows = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('web3Address', '=', acct.address.toLowerCase())
      .execute()
    expect(rows).toHaveLength(1)
  })

  it('a wallet that has not finished onboarding gets 202 and a fresh onboarding tempToken', async () => {
    const acct = wallet()
    const first = await signIn(acct)
    expect(first.statusCode).toBe(202)
    const second = await signIn(acct)
    expect(second.statusCode, second.body).toBe(202)
    expect(second.json().data.account).toBe(acct.address)
    expect(second.json().data.tempToken.token).not.toBe(first.json().data.tempToken.token)
    // Only the newest onboarding tempToken is alive.
    expectError(
      await post('/v1/auth/web3/onboard', {
        tempToken: first.json().data.tempToken.token,
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
      }),
      401,
      'UNAUTHENTICATED',
    )
    const ok = await post('/v1/auth/web3/onboard', {
      tempToken: second.json().data.tempToken.token,
      firstName: 'A',
      lastName: 'B',
      email: uniqueEmail(),
    })
    expect(ok.statusCode, ok.body).toBe(200)
  })

  it('an onboarded wallet whose email is not verified onboards again; only the latest email verifies', async () => {
    const acct = wallet()
    const firstEmail = uniqueEmail('first')
    const secondEmail = uniqueEmail('second')
    const a = await signIn(acct)
    const o1 = await post('/v1/auth/web3/onboard', {
      tempToken: a.json().data.tempToken.token,
      firstName: 'A',
      lastName: 'B',
      email: firstEmail,
    })
    expect(o1.statusCode).toBe(200)
    const oldCode = await lastCode(t, firstEmail)

    const b = await signIn(acct)
    expect(b.statusCode, b.body).toBe(202)
    expect(b.json().message).toMatch(/verify your email/i)
    const o2 = await post('/v1/auth/web3/onboard', {
      tempToken: b.json().data.tempToken.token,
      firstName: 'Ada',
      lastName: 'Byron',
      email: secondEmail,
    })
    expect(o2.statusCode, o2.body).toBe(200)
    // The first code was replaced.
    expectError(
      await post('/v1/auth/account/verify', { token: oldCode, tempToken: o1.json().data.tempToken.token }),
      400,
      'INVALID_CODE',
    )
    // The first email is free again.
    const other = await signIn(wallet())
    const o3 = await post('/v1/auth/web3/onboard', {
      tempToken: other.json().data.tempToken.token,
      firstName: 'C',
      lastName: 'D',
      email: firstEmail,
    })
    expect(o3.statusCode, o3.body).toBe(200)

    const verify = await post('/v1/auth/account/verify', {
      token: await lastCode(t, secondEmail),
      tempToken: o2.json().data.tempToken.token,
    })
    expect(verify.statusCode, verify.body).toBe(200)
    const me = await t.req({ method: 'GET', url: '/v1/account', token: verify.json().data.token })
    expect(me.json().data).toMatchObject({ email: secondEmail, emailVerified: true, firstName: 'Ada' })
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
    const rows = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('web3Address', '=', acct.address.toLowerCase())
      .execute()
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

  it('refuses an expired onboarding tempToken', async () => {
    const res = await signIn(wallet())
    t.clock.advance(15 * 60_000 + 1000)
    expectError(
      await post('/v1/auth/web3/onboard', {
        tempToken: res.json().data.tempToken.token,
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
      }),
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

  it('refuses an email another account holds with CONFLICT, and the tempToken stays usable', async () => {
    const taken = await createUser(t)
    const res = await signIn(wallet())
    const tempToken = res.json().data.tempToken.token
    expectError(
      await post('/v1/auth/web3/onboard', {
        tempToken,
        firstName: 'A',
        lastName: 'B',
        email: taken.email.toUpperCase(),
      }),
      409,
      'CONFLICT',
    )
    // The email of another web3 account (onboarded, not even verified) is taken too.
    const other = await signIn(wallet())
    const otherEmail = uniqueEmail()
    expect(
      (
        await post('/v1/auth/web3/onboard', {
          tempToken: other.json().data.tempToken.token,
          firstName: 'A',
          lastName: 'B',
          email: otherEmail,
        })
      ).statusCode,
    ).toBe(200)
    expectError(
      await post('/v1/auth/web3/onboard', { tempToken, firstName: 'A', lastName: 'B', email: otherEmail }),
      409,
      'CONFLICT',
    )
    const ok = await post('/v1/auth/web3/onboard', {
      tempToken,
      firstName: 'A',
      lastName: 'B',
      email: uniqueEmail(),
    })
    expect(ok.statusCode, ok.body).toBe(200)
    // ... once.
    expectError(
      await post('/v1/auth/web3/onboard', { tempToken, firstName: 'A', lastName: 'B', email: uniqueEmail() }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('validates the onboarding body', async () => {
    const res = await signIn(wallet())
    const tempToken = res.json().data.tempToken.token
    const good = { tempToken, firstName: 'A', lastName: 'B', email: uniqueEmail() }
    for (const body of [
      { ...good, email: 'not-an-email' },
      { ...good, firstName: '' },
      { ...good, lastName: '   ' },
      { ...good, firstName: 'x'.repeat(101) },
      { ...good, email: 5 },
      { tempToken, firstName: 'A', lastName: 'B' },
      { tempToken, firstName: 'A', email: good.email },
      { firstName: 'A', lastName: 'B', email: good.email },
      { ...good, role: 'admin' },
    ]) {
      expectError(await post('/v1/auth/web3/onboard', body), 400, 'VALIDATION_ERROR')
    }
    // None of that spent the tempToken.
    expect((await post('/v1/auth/web3/onboard', good)).statusCode).toBe(200)
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

  it('the wallet of a deleted account signs up as a new account', async () => {
    const { acct, token } = await onboardedWallet()
    const me = (await t.req({ method: 'GET', url: '/v1/account', token })).json().data
    await t.database.db
      .updateTable('users')
      .set({ deletedAt: t.clock.now() })
      .where('id', '=', me._id)
      .execute()
    const res = await signIn(acct)
    expect(res.statusCode, res.body).toBe(202)
    const rows = await t.database.db
      .selectFrom('users')
      .select(['id', 'deletedAt'])
      .where('web3Address', '=', acct.address.toLowerCase())
      .execute()
    expect(rows).toHaveLength(2)
  })
})

describe('rate limits on wallet sign-in', () => {
  let limited: TestApp
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_EMAIL: '2' } })
  })
  afterAll(() => limited.close())

  it('limits message requests per address, case-insensitively', async () => {
    const acct = wallet()
    const ask = (account: string) =>
      limited.req({ method: 'POST', url: '/v1/auth/web3/request', payload: { account } })
    expect((await ask(acct.address)).statusCode).toBe(200)
    expect((await ask(acct.address.toLowerCase())).statusCode).toBe(200)
    const res = await ask(acct.address)
    expectError(res, 429, 'RATE_LIMITED')
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    // Another address is not affected.
    expect((await ask(wallet().address)).statusCode).toBe(200)
  })
})
