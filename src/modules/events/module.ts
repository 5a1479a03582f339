// Domain events: the durable record of every state change and the subscribers fed from it in the
// change's own transaction (see service.ts). Built first: every module may emit.
import type { Clock } from '../../platform/clock.ts'
import { EventService } from './service.ts'

export function buildEvents(deps: { clock: Clock }) {
  return { events: new EventService(deps) }
}
