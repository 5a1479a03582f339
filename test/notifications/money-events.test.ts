// Money steps as events: a job funded on the dev chain, delivered and completed (its escrow
// released) gives each event once, and the notifications of the people it concerns.
import { describe, expect, it } from 'vitest'
import { workScene } from '../work/helpers.ts'

const w = workScene()

describe('events of a paid job', () => {
  it('funded, delivered, completed and released: each once, notified to the other party', async () => {
    const { t, creator, talent } = w.scene
    const { id } = await w.ongoingJob()
    expect((await w.work(talent, id, 'deliver', { note: 'done' })).code).toBe(200)
    expect((await w.work(creator, id, 'complete')).code).toBe(200)
    await w.settle()

    const events = await t.database.db
      .selectFrom('events')
      .select(['type'])
      .where('collectionId', '=', id)
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
    const types = events.map((e) => e.type)
    for (const type of ['escrow.funded', 'collection.delivered', 'collection.completed', 'escrow.released'])
      expect(
        types.filter((x) => x === type),
        type,
      ).toHaveLength(1)

    const mine = await t.req({ method: 'GET', url: '/v1/notifications/?limit=100', token: talent.token })
    const kinds = mine.json().data.notification.map((n: { type: string }) => n.type)
    expect(kinds).toEqual(expect.arrayContaining(['escrow_funded', 'job_completed', 'new_transfer']))
    const theirs = await t.req({ method: 'GET', url: '/v1/notifications/?limit=100', token: creator.token })
    expect(theirs.json().data.notification.map((n: { type: string }) => n.type)).toContain('job_delivered')
  })
})
