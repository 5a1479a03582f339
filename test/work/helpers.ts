// Shared steps of the work tests: an app listening for the client SDK, a creator, talents and a
// stranger, jobs posted and funded on the dev chain, and the explicit work routes.
import { afterAll, beforeAll, expect } from 'vitest'
import { settleAll } from '../escrow/helpers.ts'
import { toUnits } from '../escrow/payment-helpers.ts'
import type { TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { expectConsistent, sendFrom } from '../helpers/money.ts'
import { expectOk, type SdkAnswer, type SdkContext, startSdk } from '../sdk/helpers.ts'

export interface WorkScene {
  ctx: SdkContext
  t: TestApp
  creator: TestUser
  talent: TestUser
  other: TestUser
  stranger: TestUser
}

/** The answer of a route called through app.inject, shaped like an SDK answer. */
export async function call(
  t: TestApp,
  user: TestUser | undefined,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<SdkAnswer> {
  const res = await t.req({
    method,
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    ...(user ? { token: user.token } : {}),
  })
  return { ...res.json(), code: res.statusCode }
}

/** Builds the scene before the file's tests (and closes it after). */
export function workScene() {
  const s = {} as WorkScene
  const outsider = () => s.t.app.services.chain.devnet!.accounts[3]!
  beforeAll(async () => {
    s.ctx = await startSdk()
    s.t = s.ctx.t
    s.creator = await createUser(s.t, { firstName: 'Cora', lastName: 'Creator' })
    s.talent = await createUser(s.t, { firstName: 'Tala', lastName: 'Talent' })
    s.other = await createUser(s.t, { firstName: 'Otto', lastName: 'Other' })
    s.stranger = await createUser(s.t, { firstName: 'Stan', lastName: 'Stranger' })
  }, 120_000)
  afterAll(() => s.t?.close())

  /** A job posted by `user` (the creator by default) through the SDK. */
  async function postJob(body: Record<string, unknown> = {}, user = s.creator) {
    const data = expectOk(
      await s.ctx.sdk.collection.create(user.token, {
        type: 'job',
        name: 'Landing page',
        description: 'One responsive page',
        isPrivate: false,
        paymentFee: 100,
        ...body,
      } as never),
    )
    return data._id as string
  }

  /** The talent (default) is invited and accepts: the job is waiting for its payment. */
  async function hire(jobId: string, talent = s.talent) {
    const invite = expectOk(
      await s.ctx.sdk.invite.sendInvite(s.creator.token, { recipient: talent.id, collection: jobId }),
    )
    expectOk(await s.ctx.sdk.invite.acceptInvite(talent.token, invite._id))
    return invite._id as string
  }

  /** Funds the job's escrow through the SDK and pays it from an outside wallet on the dev chain. */
  async function fund(jobId: string, coin = 'avax') {
    const q = expectOk(
      await s.ctx.sdk.payment.create(s.creator.token, { coin: coin as 'avax', collection: jobId }),
    )
    const decimals = s.t.app.services.chain.coin(coin).decimals
    await sendFrom(s.t, outsider(), q.address, coin, toUnits(q.amountToPay, decimals))
    await s.t.app.services.settlement.watcher.scanNow()
    const v = expectOk(await s.ctx.sdk.payment.validate(s.creator.token, { collection: jobId }))
    expect(v.status).toBe('paid')
    await expectConsistent(s.t)
    return q as {
      escrowId: string
      address: string
      amountToPay: string
      expectedFee: string
      collectionAmountCoin: string
    }
  }

  /** A job posted, its talent hired and its escrow paid: ongoing. */
  async function ongoingJob(body: Record<string, unknown> = {}, talent = s.talent) {
    const id = await postJob(body)
    await hire(id, talent)
    const q = await fund(id)
    expect((await job(id)).status).toBe('ongoing')
    return { id, q }
  }

  /** The job as its creator sees it. */
  async function job(id: string, user = s.creator) {
    return expectOk(await s.ctx.sdk.collection.getById(user.token, id))
  }

  const work = (user: TestUser | undefined, id: string, step: string, body?: unknown) =>
    call(s.t, user, 'POST', `/v1/collection/${id}/${step}`, body ?? {})

  const legsOf = (escrowId: string) =>
    s.t.database.db
      .selectFrom('escrowLegs')
      .selectAll()
      .where('escrowId', '=', escrowId)
      .orderBy('seq')
      .execute()

  const audits = (collectionId: string) =>
    s.t.database.db
      .selectFrom('auditLog')
      .select(['action', 'userId', 'meta'])
      .where('action', 'like', 'work.%')
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
      .then((rows) => rows.filter((r) => (r.meta as { collectionId?: string }).collectionId === collectionId))

  return {
    scene: s,
    outsider,
    postJob,
    hire,
    fund,
    ongoingJob,
    job,
    work,
    legsOf,
    audits,
    settle: async () => {
      await settleAll(s.t)
      await expectConsistent(s.t)
    },
  }
}
