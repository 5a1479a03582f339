// Feeds: the activity stream read from the domain events (/v1/feeds).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { EventService } from '../events/types.ts'
import { feedRoutes } from './routes.ts'
import { FeedService, type PeopleLookup } from './service.ts'

export function buildFeeds(d: { db: Db; clock: Clock; events: EventService; people: PeopleLookup }) {
  return { feeds: new FeedService(d) }
}

export async function feedsHttp(app: FastifyInstance, s: { feeds: FeedService }) {
  await app.register(feedRoutes, { feeds: s.feeds })
}
