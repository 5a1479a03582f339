// A deleted account (#46) keeps no identity documents: in the deletion's own transaction every
// verification session of the person loses its personal data (names, birth date, address,
// document number), and a job then removes the images from the private file store; another
// person's verification is untouched, and running the job again changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { png, sendImage, startSession } from './helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

async function submitted(user: TestUser) {
  const started = await startSession(t, user)
  expectOk(await sendImage(t, user, 'face', png(4, 5)))
  expectOk(await sendImage(t, user, 'document-front', png(4, 6)))
  return started.verification.vendorData as string
}

const sessionOf = (id: string) =>
  t.database.db.selectFrom('identityVerifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const imagesOf = (id: string) =>
  t.database.db
    .selectFrom('identityVerificationMedia')
    .select('fileId')
    .where('verificationId', '=', id)
    .execute()
const liveFiles = (ids: string[]) =>
  t.database.db
    .selectFrom('files')
    .select('id')
    .where('id', 'in', ids)
    .where('deletedAt', 'is', null)
    .execute()

describe('deleting an account', () => {
  it('erases its verifications’ personal data at once and removes their images', async () => {
    const gone = await createUser(t)
    const kept = await createUser(t)
    const goneId = await submitted(gone)
    const keptId = await submitted(kept)
    const files = (await imagesOf(goneId)).map((m) => m.fileId)
    expect(files).toHaveLength(2)
    expect(await liveFiles(files)).toHaveLength(2)
    expect((await sessionOf(goneId)).documentNumber).not.toBe('')

    const del = await t.req({
      method: 'POST',
      url: '/v1/account/delete-account',
      token: gone.token,
      payload: { password: gone.password },
    })
    expect(del.statusCode, del.body).toBe(200)
    // with the deletion itself: nothing personal left
    expect(await sessionOf(goneId)).toMatchObject({
      firstName: '',
      lastName: '',
      dateOfBirth: '',
      fullAddress: '',
      documentNumber: '',
      decision: null,
      deletedAt: expect.any(Date),
    })
    await t.drain()
    expect(await imagesOf(goneId)).toEqual([])
    expect(await liveFiles(files)).toEqual([])
    // the other person's verification is as it was
    expect((await sessionOf(keptId)).documentNumber).not.toBe('')
    expect(await imagesOf(keptId)).toHaveLength(2)
    // a job run again finds nothing to do
    await t.app.services.jobs.enqueue(t.database.db, 'verification.forget', { userId: gone.id })
    await t.drain()
    expect((await sessionOf(keptId)).firstName).not.toBe('')
  })
})
