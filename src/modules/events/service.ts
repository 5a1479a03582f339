// Domain events: `emit` writes one durable event row in the caller's transaction and runs every
// subscriber in that same transaction, so the event, and everything fed from it (notifications,
// feed entries, webhook deliveries, mail and live-push jobs), commits with the change or not at
// all. Subscribers only write rows or enqueue jobs (keyed by the event id); they never call the
// network, so a crash after the commit loses nothing and a job that runs again doubles nothing.
import type { Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { eventRepo } from './repo.ts'
import type { DomainEvent, EmitInput, EventType } from './types.ts'

export type EventHandler = (tx: Tx, event: DomainEvent) => Promise<void>

export interface EventServiceDeps {
  clock: Clock
}

export class EventService {
  readonly #handlers = new Map<string, EventHandler>()

  constructor(private readonly deps: EventServiceDeps) {}

  /**
   * Registers a subscriber under a unique name; it receives every event (and ignores the types it
   * does not handle), in the emitting transaction, in the order subscribers were registered. A
   * subscriber that throws rolls the change back with it.
   */
  subscribe(name: string, handler: EventHandler): void {
    if (this.#handlers.has(name)) throw new Error(`event subscriber ${name} is already registered`)
    this.#handlers.set(name, handler)
  }

  /**
   * Records the event in `tx` and runs the subscribers. Returns the stored event, or null when an
   * event with the same `key` was recorded before (nothing is written or run again).
   */
  async emit<T extends EventType>(tx: Tx, input: EmitInput<T>): Promise<DomainEvent<T> | null> {
    const createdAt = this.deps.clock.now()
    const event = {
      id: newId(createdAt.getTime()),
      type: input.type,
      actorId: input.actorId,
      audience: [...new Set(input.audience)],
      collectionId: input.collectionId ?? null,
      isPublic: input.isPublic ?? false,
      data: input.data,
      createdAt,
    } as DomainEvent<T>
    const written = await eventRepo.insert(tx, {
      ...event,
      data: event.data as Record<string, unknown>,
      key: input.key ?? null,
    })
    if (!written) return null
    for (const handler of this.#handlers.values()) await handler(tx, event as DomainEvent)
    return event
  }
}
