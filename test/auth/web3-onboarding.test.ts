// A new wallet's account and its onboarding (#12): name and email, the mailed code, onboarding again
// before the email is verified, taken emails, the body's checks and the tempToken's life.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, lastCode, mailCount, uniqueEmail } from '../helpers/factories.ts'
import { authFlows, wallet } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, expectTokenObject, signIn, onboardedWallet, accountsOfWallet } = authFlows(() => t)

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
    // A sign-in before the verification leaves an onboarding tempToken that comes too late.
    const late = await signIn(acct)
    expect(late.statusCode, late.body).toBe(202)

    const verify = await post('/v1/auth/account/verify', {
      token: await lastCode(t, secondEmail),
      tempToken: o2.json().data.tempToken.token,
    })
    expect(verify.statusCode, verify.body).toBe(200)
    expectError(
      await post('/v1/auth/web3/onboard', {
        tempToken: late.json().data.tempToken.token,
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
      }),
      409,
      'ONBOARDING_ALREADY_COMPLETED',
    )
    const me = await t.req({ method: 'GET', url: '/v1/account', token: verify.json().data.token })
    expect(me.json().data).toMatchObject({ email: secondEmail, emailVerified: true, firstName: 'Ada' })
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
    const rows = await accountsOfWallet(acct.address)
    expect(rows).toHaveLength(2)
  })
})
