// What other modules may name of feeds: the service's type and the feed entry schema.
export { Feed } from './schemas.ts'
export type { FeedService } from './service.ts'
