// A collection's paymentWebHook, as the client SDK types it on ICollectionDto: set on creation
// (its secret in that answer only), shown to the creator alone, and called with signed JSON when
// the collection's payment moves: its escrow funded on the dev chain and validated, then released.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settleAll } from '../escrow/helpers.ts'
import { paymentScene, toUnits } from '../escrow/payment-helpers.ts'
import type { TestUser } from '../helpers/factories.ts'
import { sendFrom } from '../helpers/money.ts'
import { expectOk } from '../sdk/helpers.ts'
import { type Receiver, startReceiver, verifyAsReceiver } from './receiver.ts'

const S = paymentScene()
const { fund, validate, release, assign, outsider } = S
let r: Receiver
beforeAll(async () => {
  r = await startReceiver(() => S.scene.t.clock.now().getTime())
})
afterAll(() => r?.close())

const at = (path: string) => r.received.filter((x) => x.path === path)

async function create(user: TestUser, body: Record<string, unknown>) {
  return S.scene.t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { type: 'job', name: 'Logo design', description: 'A logo', paymentFee: '100', ...body },
  })
}

async function patch(user: TestUser, id: string, payload: Record<string, unknown>) {
  return S.scene.t.req({ method: 'PATCH', url: `/v1/collection/${id}`, token: user.token, payload })
}

describe('paymentWebHook', () => {
  it('is stored, shown to the creator as the SDK types it, and called when the payment moves', async () => {
    const { t, creator, talent, stranger, ctx } = S.scene
    const res = await create(creator, { paymentWebHook: r.url('/collection') })
    expect(res.statusCode, res.body).toBe(200)
    const created = res.json().data
    expect(created.paymentWebHook).toBe(r.url('/collection'))
    expect(created.paymentWebHookSecret).toMatch(/^whsec_/)
    const secret = created.paymentWebHookSecret as string
    const id = created._id as string

    // the SDK's getById: the creator sees the URL (never the secret again); others see neither
    const mine = expectOk(await ctx.sdk.collection.getById(creator.token, id))
    expect(mine.paymentWebHook).toBe(r.url('/collection'))
    expect(mine).not.toHaveProperty('paymentWebHookSecret')
    const theirs = expectOk(await ctx.sdk.collection.getById(stranger.token, id))
    expect(theirs).not.toHaveProperty('paymentWebHook')
    const list = await t.req({
      method: 'GET',
      url: `/v1/collection?creatorId=${creator.id}`,
      token: creator.token,
    })
    expect(list.json().data.data.find((c: { _id: string }) => c._id === id).paymentWebHook).toBe(
      r.url('/collection'),
    )

    // the creator's endpoints list it as the collection's
    const eps = await t.req({ method: 'GET', url: '/v1/webhooks', token: creator.token })
    const ep = eps.json().data.data.find((e: { collectionId: string }) => e.collectionId === id)
    expect(ep).toMatchObject({ url: r.url('/collection'), events: ['escrow.funded', 'escrow.released'] })
    expect(eps.body).not.toContain(secret)

    // funded on chain and validated: escrow.funded
    await assign(id, talent.id)
    const q = (await fund(creator, { coin: 'avax', collection: id })).json().data
    const decimals = t.app.services.chain.coin('avax').decimals
    await sendFrom(t, outsider(), q.address, 'avax', toUnits(q.amountToPay, decimals))
    expect((await validate(creator, { collection: id })).json().data.status).toBe('paid')
    await t.drain()
    let got = at('/collection')
    expect(got).toHaveLength(1)
    const funded = JSON.parse(got[0]!.body)
    expect(funded).toMatchObject({
      type: 'escrow.funded',
      collectionId: id,
      data: { collectionId: id, escrowId: q.escrowId, usdAmount: '100.00' },
    })
    expect(got[0]!.headers['webhook-id']).toBe(funded.id)
    expect(verifyAsReceiver(secret, got[0]!, got[0]!.receivedAt)).toEqual(JSON.parse(got[0]!.body))

    // the URL may still change once the escrow is paid; the secret stays
    const moved = await patch(creator, id, { paymentWebHook: r.url('/collection2') })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(moved.json().data.paymentWebHook).toBe(r.url('/collection2'))
    expect(moved.json().data).not.toHaveProperty('paymentWebHookSecret')
    // other details still may not
    expect((await patch(creator, id, { name: 'Other' })).statusCode).toBe(409)
    // nobody else may set it
    expect([403, 404]).toContain((await patch(stranger, id, { paymentWebHook: r.url('/evil') })).statusCode)

    // released: escrow.released, to the new URL, signed with the same secret
    expect((await release(creator, { collection: id, amount: 100 })).statusCode).toBe(200)
    await settleAll(t)
    got = at('/collection2')
    expect(got.map((g) => JSON.parse(g.body).type)).toEqual(['escrow.released'])
    expect(verifyAsReceiver(secret, got[0]!, got[0]!.receivedAt)).toEqual(JSON.parse(got[0]!.body))
    expect(at('/collection')).toHaveLength(1)
    const log = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}/deliveries`, token: creator.token })
    expect(log.json().data.data.map((d: { type: string; status: string }) => [d.type, d.status])).toEqual([
      ['escrow.released', 'delivered'],
      ['escrow.funded', 'delivered'],
    ])
    // the talent (a party of the escrow) cannot read the creator's endpoint
    const hidden = await t.req({
      method: 'GET',
      url: `/v1/webhooks/${ep._id}/deliveries`,
      token: talent.token,
    })
    expect(hidden.statusCode).toBe(404)

    // removed with null: no longer shown, no longer listed
    const removed = await patch(creator, id, { paymentWebHook: null })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json().data).not.toHaveProperty('paymentWebHook')
    expect(expectOk(await ctx.sdk.collection.getById(creator.token, id))).not.toHaveProperty('paymentWebHook')
    const after = await t.req({ method: 'GET', url: '/v1/webhooks', token: creator.token })
    expect(after.json().data.data.some((e: { collectionId: string }) => e.collectionId === id)).toBe(false)
  })

  it('refuses a URL that is not https (or http://localhost outside production)', async () => {
    const { creator } = S.scene
    for (const url of ['http://shop.example.com/hook', 'ftp://shop.example.com/hook', 'nonsense'])
      expect((await create(creator, { paymentWebHook: url })).statusCode, url).toBe(400)
    const res = await create(creator, { paymentWebHook: 'http://shop.example.com/hook' })
    expect(res.json().data.errors[0].path).toBe('/paymentWebHook')
  })

  it('a later set on a collection without one shows a new secret once', async () => {
    const { creator } = S.scene
    const id = (await create(creator, {})).json().data._id as string
    const first = await patch(creator, id, { paymentWebHook: r.url('/late') })
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json().data.paymentWebHookSecret).toMatch(/^whsec_/)
    const again = await patch(creator, id, { paymentWebHook: r.url('/late') })
    expect(again.json().data).not.toHaveProperty('paymentWebHookSecret')
    // with a status change it is refused
    expect((await patch(creator, id, { paymentWebHook: r.url('/x'), status: 'ongoing' })).statusCode).toBe(
      400,
    )
  })
})
