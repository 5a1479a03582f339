// The operator review, end to end through the API: a session, its images kept as private files,
// the attempts, an operator's approval or rejection (audited), the user's notification and the
// profile's kyc fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  ATTEMPTS,
  fetchUrl,
  kycOf,
  MINE,
  NEW,
  notificationsOf,
  PERSON,
  png,
  sendImage,
  startSession,
} from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(async () => t?.close())

describe('operator review', () => {
  it('session → images → attempts → approve → notified → verified', async () => {
    const user = await createUser(t)
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: null })

    const started = await startSession(t, user)
    expect(started).toEqual({
      status: 'success',
      verification: {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        url: `${t.config.publicUrl}/v1/user-verification/veriff/session/media`,
        vendorData: started.verification.id,
        host: t.config.publicUrl,
        status: 'created',
        sessionToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      },
    })
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: 'pending' })

    const face = png(8, 10)
    const first = expectOk(await sendImage(t, user, 'face', face))
    expect(first).toEqual({
      status: 'created',
      image: {
        context: 'face',
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: expect.stringMatching(/^private\//),
        timestamp: null,
        size: face.length,
        mimetype: 'image/png',
        url: expect.stringContaining('signature='),
      },
    })
    // The image is a private file of the user's: its signed URL serves the same bytes.
    const served = await fetchUrl(t, first.image.url)
    expect(served.statusCode).toBe(200)
    expect(Buffer.from(served.rawPayload).equals(face)).toBe(true)
    const file = await t.req({ method: 'GET', url: `/v1/upload/${first.image.id}`, token: user.token })
    expect(expectOk(file)).toMatchObject({ type: 'image/png', uploaded_by: user.id })

    // A passport needs no back: the front completes the session.
    const front = expectOk(await sendImage(t, user, 'document-front', png(8, 200), true))
    expect(front.status).toBe('submitted')

    const attempts = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(attempts.status).toBe('success')
    expect(attempts.attemptsLeft).toBe(4)
    expect(attempts.verifications).toHaveLength(1)
    expect(attempts.verifications[0]).toMatchObject({
      _id: started.verification.vendorData,
      owner: user.id,
      sessionID: started.verification.id,
      type: 'operator',
      status: 'submitted',
      country: 'GB',
      documentType: 'PASSPORT',
      providerReason: '',
      mediaId: front.image.id,
      mediaMimeType: 'image/png',
      mediaUrl: expect.stringContaining('signature='),
      verificationMetaData: {
        person: { firstName: 'Ada', lastName: 'Lovelace', gender: 'F', dateOfBirth: '1990-12-10' },
        media: [
          expect.objectContaining({ _id: first.image.id, context: 'face' }),
          expect.objectContaining({ _id: front.image.id, context: 'document-front' }),
        ],
      },
    })

    // The operator's queue shows it with both images behind signed URLs.
    const queue = expectOk(
      await t.req({ method: 'GET', url: '/v1/admin/verifications?status=submitted', token: admin.token }),
    )
    const mine = queue.data.find((v: { _id: string }) => v._id === started.verification.vendorData)
    expect(mine).toMatchObject({
      owner: { _id: user.id, email: user.email },
      provider: 'operator',
      status: 'submitted',
      person: { ...PERSON },
      decidedBy: null,
    })
    expect(mine.media.map((m: { context: string }) => m.context)).toEqual(['face', 'document-front'])
    const operatorView = await fetchUrl(t, mine.media[0].url)
    expect(Buffer.from(operatorView.rawPayload).equals(face)).toBe(true)

    const id = started.verification.vendorData
    const approved = expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${id}/approve`,
        token: admin.token,
        payload: { reason: 'Passport and selfie match' },
      }),
    )
    expect(approved).toMatchObject({
      _id: id,
      status: 'approved',
      decidedBy: admin.id,
      decidedAt: expect.any(String),
    })
    const audit = await auditRows(t, 'verification.approve')
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({
      actorId: admin.id,
      targetType: 'verification',
      targetId: id,
      reason: 'Passport and selfie match',
    })

    expect(await kycOf(t, user)).toEqual({ kyc: true, kycStatus: 'approved' })
    const notes = await notificationsOf(t, user)
    expect(notes.filter((n) => n.type === 'identity_verified')).toHaveLength(1)
    const list = expectOk(await t.req({ method: 'GET', url: MINE, token: user.token }))
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({ _id: id, status: 'approved' })

    // Decided once only, and a verified account starts no new session.
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${id}/reject`,
        token: admin.token,
        payload: { reason: 'second thoughts' },
      }),
      409,
      'VERIFICATION_NOT_OPEN',
    )
    expectError(
      await t.req({ method: 'POST', url: NEW, token: user.token, payload: PERSON }),
      409,
      'VERIFICATION_IN_PROGRESS',
    )
    expect(await auditRows(t, 'verification.reject')).toHaveLength(0)
  })

  it('an operator cannot decide their own verification', async () => {
    const started = await startSession(t, admin)
    const id = started.verification.vendorData
    expectOk(await sendImage(t, admin, 'face', png(4, 7)))
    expect(expectOk(await sendImage(t, admin, 'document-front', png(4, 8))).status).toBe('submitted')
    for (const verb of ['approve', 'reject'])
      expectError(
        await t.req({
          method: 'POST',
          url: `/v1/admin/verifications/${id}/${verb}`,
          token: admin.token,
          payload: { reason: 'Looks like me' },
        }),
        409,
        'OWN_ACCOUNT_REFUSED',
      )
    expect(await kycOf(t, admin)).toEqual({ kyc: false, kycStatus: 'pending' })
    expect((await auditRows(t, 'verification.approve')).map((r) => r.targetId)).not.toContain(id)
  })

  it('reject with a reason: the user sees it, is notified, and may start again', async () => {
    const user = await createUser(t)
    const started = await startSession(t, user, { documentType: 'ID_CARD' })
    const id = started.verification.vendorData
    expect(expectOk(await sendImage(t, user, 'face', png(4, 1))).status).toBe('created')
    expect(expectOk(await sendImage(t, user, 'document-front', png(4, 2))).status).toBe('created')
    // An identity card has a back: not submitted yet, so not decided yet.
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${id}/reject`,
        token: admin.token,
        payload: { reason: 'Blurred' },
      }),
      409,
      'VERIFICATION_NOT_SUBMITTED',
    )
    expect(expectOk(await sendImage(t, user, 'document-back', png(4, 3))).status).toBe('submitted')
    // Submitted: no more images.
    expectError(await sendImage(t, user, 'face', png(4, 4)), 409, 'VERIFICATION_NOT_OPEN')

    const reason = 'The document photo is blurred; send a sharper one'
    const rejected = expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${id}/reject`,
        token: admin.token,
        payload: { reason },
      }),
    )
    expect(rejected).toMatchObject({ status: 'declined', reason })
    expect((await auditRows(t, 'verification.reject')).map((r) => r.targetId)).toContain(id)
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: 'declined' })
    const notes = (await notificationsOf(t, user)).filter((n) => n.type === 'identity_rejected')
    expect(notes).toHaveLength(1)
    expect(notes[0]!.description).toContain(reason)
    const attempts = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(attempts.verifications[0]).toMatchObject({ _id: id, status: 'declined', providerReason: reason })

    const again = await startSession(t, user)
    expect(again.verification.status).toBe('created')
    const after = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(after.verifications.map((v: { status: string }) => v.status)).toEqual(['created', 'declined'])
    expect(after.attemptsLeft).toBe(3)
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: 'pending' })
  })

  it('two images sent at once: the session is submitted once both are in', async () => {
    const user = await createUser(t)
    await startSession(t, user)
    const [a, b] = await Promise.all([
      sendImage(t, user, 'face', png(4, 5)),
      sendImage(t, user, 'document-front', png(4, 6)),
    ])
    expect([expectOk(a).status, expectOk(b).status].sort()).toEqual(['created', 'submitted'])
    const attempts = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token }))
    expect(attempts.verifications[0].status).toBe('submitted')
    expect(attempts.verifications[0].verificationMetaData.media).toHaveLength(2)
  })
})
