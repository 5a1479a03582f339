// `sdk.collectionSchema` and `sdk.collectionStore` against the real service. The SDK's own schema
// create/update/delete fail before sending (`CryptoJS is not defined`), so the schema is made the
// way the service offers (an admin's POST /v1/admin/collection-schemas; here its service call).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectOk, type SdkContext, type SdkUser, signUp, startSdk } from './helpers.ts'

let ctx: SdkContext
let ada: SdkUser
let ben: SdkUser
beforeAll(async () => {
  ctx = await startSdk()
  ada = await signUp(ctx, { firstName: 'Ada' })
  ben = await signUp(ctx, { firstName: 'Ben' })
  await ctx.t.app.services.stores.createSchema({
    name: 'Testimonial',
    description: 'What a client said',
    schema: [
      { name: 'quote', type: 'string', required: true, unique: false, maxLength: 280 },
      { name: 'stars', type: 'number', required: true, unique: false, min: 1, max: 5 },
    ],
  })
})
afterAll(() => ctx?.t.close())

describe('collectionSchema', () => {
  it('lists and reads schemas; the SDK’s own create fails before sending', async () => {
    const page = expectOk(await ctx.sdk.collectionSchema.getAll(ada.token, { name: 'testim' }))
    expect(page).toMatchObject({ total: 1, page: 1, limit: 12 })
    const [s] = page.data
    expect(s).toMatchObject({ name: 'Testimonial', reference: 'testimonial' })
    expect(expectOk(await ctx.sdk.collectionSchema.getById(ada.token, s._id)).schema).toHaveLength(2)
    expectError(await ctx.sdk.collectionSchema.getById(ada.token, 'nothing'), 404, 'NOT_FOUND')
    await expect(ctx.sdk.collectionSchema.create({ name: 'X', description: '', schema: [] })).rejects.toThrow(
      'CryptoJS is not defined',
    )
    // update and delete sign their system-v2 requests the same broken way: they never leave the client
    await expect(ctx.sdk.collectionSchema.update(s._id, { name: 'Y' } as never)).rejects.toThrow(
      'CryptoJS is not defined',
    )
    await expect(ctx.sdk.collectionSchema.delete(s._id)).rejects.toThrow('CryptoJS is not defined')
  })
})

describe('collectionStore', () => {
  it('creates, lists, counts, reads, updates and deletes records through the SDK', async () => {
    const rec = expectOk(
      await ctx.sdk.collectionStore.create(ada.token, 'testimonial', { quote: 'Great work', stars: 5 }),
    )
    expect(rec).toMatchObject({ quote: 'Great work', stars: 5, owner: ada.id, isPrivate: false })
    expectOk(await ctx.sdk.collectionStore.create(ben.token, 'testimonial', { quote: 'Fine', stars: 3 }))
    const list = expectOk(await ctx.sdk.collectionStore.getAll(ada.token, 'testimonial', { stars: 5 }))
    expect(list.data.map((r: { quote: string }) => r.quote)).toEqual(['Great work'])
    expect(expectOk(await ctx.sdk.collectionStore.getCount(ada.token, 'testimonial'))).toBe(2)
    expect(expectOk(await ctx.sdk.collectionStore.getById(ben.token, 'testimonial', rec._id)).quote).toBe(
      'Great work',
    )
    const updated = expectOk(
      await ctx.sdk.collectionStore.update(ada.token, 'testimonial', rec._id, { stars: 4 }),
    )
    expect(updated.stars).toBe(4)
    expectError(
      await ctx.sdk.collectionStore.update(ben.token, 'testimonial', rec._id, { stars: 1 }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await ctx.sdk.collectionStore.create(ada.token, 'testimonial', { quote: 'x', stars: 9 }),
      400,
      'VALIDATION_ERROR',
    )
    expectOk(await ctx.sdk.collectionStore.delete(ada.token, 'testimonial', rec._id))
    expectError(await ctx.sdk.collectionStore.getById(ada.token, 'testimonial', rec._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.collectionStore.getAll('', 'testimonial'), 401, 'UNAUTHENTICATED')
  })
})
