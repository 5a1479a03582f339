// Who may see and act on a verification, and every refusal of bad input: each with its status and
// named code, and nothing left behind by a refused request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { ATTEMPTS, DELETE, MEDIA, MINE, NEW, PERSON, png, sendImage, startSession } from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestUser

beforeAll(async () => {
  t = await createTestApp({
    env: { ...adminEnv(run), VERIFICATION_MEDIA_MAX_BYTES: '2048', VERIFICATION_MAX_ATTEMPTS: '2' },
  })
  admin = await createAdmin(t, run)
})
afterAll(async () => t?.close())

const fileCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('files')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('permissions', () => {
  it('every user route needs a token', async () => {
    for (const [method, url] of [
      ['POST', NEW],
      ['POST', MEDIA],
      ['GET', ATTEMPTS],
      ['GET', MINE],
      ['POST', DELETE],
      ['DELETE', DELETE],
    ] as const)
      expectError(
        await t.req({ method, url, payload: method === 'POST' ? {} : undefined }),
        401,
        'UNAUTHENTICATED',
      )
  })

  it('another user neither sees nor acts on a session; a non-admin cannot review', async () => {
    const owner = await createUser(t)
    const other = await createUser(t)
    const started = await startSession(t, owner)
    const image = expectOk(await sendImage(t, owner, 'face', png()))
    const id = started.verification.vendorData

    // The other user's views are their own (empty), and their writes find no session.
    expect(expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: other.token })).verifications).toEqual(
      [],
    )
    expect(expectOk(await t.req({ method: 'GET', url: MINE, token: other.token }))).toEqual([])
    expectError(await sendImage(t, other, 'document-front', png()), 404, 'NOT_FOUND')
    expectError(await t.req({ method: 'POST', url: DELETE, token: other.token }), 404, 'NOT_FOUND')
    // The image is a private file: another user cannot read it or have it signed.
    expectError(
      await t.req({ method: 'GET', url: `/v1/upload/${image.image.id}`, token: other.token }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await t.req({ method: 'GET', url: `/v1/upload/url/${image.image.id}`, token: other.token }),
      404,
      'NOT_FOUND',
    )

    // Users (the owner included) are not operators.
    for (const user of [owner, other]) {
      expectError(
        await t.req({ method: 'GET', url: '/v1/admin/verifications', token: user.token }),
        403,
        'FORBIDDEN',
      )
      expectError(
        await t.req({ method: 'GET', url: `/v1/admin/verifications/${id}`, token: user.token }),
        403,
        'FORBIDDEN',
      )
      for (const action of ['approve', 'reject'])
        expectError(
          await t.req({
            method: 'POST',
            url: `/v1/admin/verifications/${id}/${action}`,
            token: user.token,
            payload: { reason: 'I approve myself' },
          }),
          403,
          'FORBIDDEN',
        )
    }
    expectError(await t.req({ method: 'GET', url: '/v1/admin/verifications' }), 401, 'UNAUTHENTICATED')
    // An admin without a fresh second factor may not either.
    const idle = await createAdmin(t, run, 1, false)
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${id}/approve`,
        token: idle.token,
        payload: { reason: 'Looks fine' },
      }),
      403,
      'FORBIDDEN',
    )
    const row = await t.database.db
      .selectFrom('identityVerifications')
      .select(['status', 'decidedBy'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ status: 'created', decidedBy: null })
    expectError(
      await t.req({
        method: 'GET',
        url: '/v1/admin/verifications/0123456789abcdef01234567',
        token: admin.token,
      }),
      404,
      'NOT_FOUND',
    )
  })
})

describe('validation', () => {
  it('refuses a malformed session request', async () => {
    const user = await createUser(t)
    const bad = async (payload: Record<string, unknown>, path: string) => {
      const res = await t.req({ method: 'POST', url: NEW, token: user.token, payload })
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(JSON.stringify(res.json().data.errors)).toContain(path)
    }
    const { firstName: _, ...noName } = PERSON
    await bad(noName, 'firstName')
    await bad({ ...PERSON, gender: 'X' }, 'gender')
    await bad({ ...PERSON, country: 'gb' }, 'country')
    await bad({ ...PERSON, documentType: 'LIBRARY_CARD' }, 'documentType')
    await bad({ ...PERSON, dateOfBirth: '2001-02-30' }, 'dateOfBirth')
    await bad({ ...PERSON, dateOfBirth: '2999-01-01' }, 'dateOfBirth')
    await bad({ ...PERSON, isAdmin: true }, '')
    expect(expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token })).verifications).toEqual(
      [],
    )
  })

  it('refuses bad images: not base64, not an image, too large, unknown context; none kept', async () => {
    const user = await createUser(t)
    expectError(await sendImage(t, user, 'face', png()), 404, 'NOT_FOUND') // no session yet
    await startSession(t, user)
    const before = await fileCount()
    const send = (payload: unknown) =>
      t.req({ method: 'POST', url: MEDIA, token: user.token, payload: payload as object })

    expectError(
      await send({ context: 'face', file: { content: 'not base64 at all!' } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await send({ context: 'passport-photo', file: { content: png().toString('base64') } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await send({ context: 'face' }), 400, 'VALIDATION_ERROR')
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n')
    expectError(
      await send({ context: 'face', file: { content: pdf.toString('base64') } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    const text = Buffer.from('just some words, not a picture')
    expectError(
      await send({ context: 'face', file: { content: text.toString('base64') } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    // Over VERIFICATION_MEDIA_MAX_BYTES (2048 here): refused before anything is stored.
    const big = png(64, 7)
    expect(big.length).toBeGreaterThan(2048)
    expectError(await sendImage(t, user, 'face', big), 413, 'PAYLOAD_TOO_LARGE')
    // Far over the body limit of the route itself.
    expectError(
      await send({ context: 'face', file: { content: 'A'.repeat(200_000) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    )

    expect(await fileCount()).toBe(before)
    const attempts = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(attempts.verifications[0].verificationMetaData.media).toEqual([])
  })

  it('one session at a time, deletion (POST or DELETE) removes the images, attempts are limited', async () => {
    const user = await createUser(t)
    await startSession(t, user)
    expectError(
      await t.req({ method: 'POST', url: NEW, token: user.token, payload: PERSON }),
      409,
      'VERIFICATION_IN_PROGRESS',
    )
    const image = expectOk(await sendImage(t, user, 'face', png()))
    const deleted = expectOk(await t.req({ method: 'POST', url: DELETE, token: user.token }))
    expect(deleted).toMatchObject({ status: 'abandoned', deletedAt: expect.any(String) })
    expectError(
      await t.req({ method: 'GET', url: `/v1/upload/${image.image.id}`, token: user.token }),
      404,
      'NOT_FOUND',
    )
    expect(expectOk(await t.req({ method: 'GET', url: MINE, token: user.token }))).toEqual([])
    expectError(await t.req({ method: 'DELETE', url: DELETE, token: user.token }), 404, 'NOT_FOUND')

    await startSession(t, user)
    expect(expectOk(await t.req({ method: 'DELETE', url: DELETE, token: user.token })).status).toBe(
      'abandoned',
    )
    // VERIFICATION_MAX_ATTEMPTS is 2 here: both are used (deleted sessions count).
    expectError(
      await t.req({ method: 'POST', url: NEW, token: user.token, payload: PERSON }),
      429,
      'VERIFICATION_ATTEMPTS_EXHAUSTED',
    )
    const attempts = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(attempts.attemptsLeft).toBe(0)
    expect(attempts.verifications.map((v: { status: string }) => v.status)).toEqual([
      'abandoned',
      'abandoned',
    ])
  })

  it('refuses a decision without a proper reason or with a bad id', async () => {
    const user = await createUser(t)
    const started = await startSession(t, user)
    const id = started.verification.vendorData
    for (const payload of [{}, { reason: 'ok' }, { reason: '   ' }, { reason: 'fine', extra: 1 }])
      expectError(
        await t.req({
          method: 'POST',
          url: `/v1/admin/verifications/${id}/approve`,
          token: admin.token,
          payload,
        }),
        400,
        'VALIDATION_ERROR',
      )
    expectError(
      await t.req({
        method: 'POST',
        url: '/v1/admin/verifications/nope/approve',
        token: admin.token,
        payload: { reason: 'fine' },
      }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/verifications?status=unknown', token: admin.token }),
      400,
      'VALIDATION_ERROR',
    )
  })
})
