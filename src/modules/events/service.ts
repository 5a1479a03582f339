// Domain events: `emit` writes one durable event row in the caller's transaction and runs every
// subscriber in that same transaction, so the event, and everything fed from it (notifications,
// feed entries, webhook deliveries, mail and live-push jobs), commits with the change or not at
// all. Subscribers only write rows or enqueue jobs (keyed by the event id); they never call the
// network, so a crash after the commit loses nothing and a job that runs again doubles nothing.
import { writeAhead } from '../../db/ahead.ts'
import type { Write } from '../../db/compose.ts'
import type { Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { eventRepo } from './repo.ts'
import type { DomainEvent, EmitInput, EventType } from './types.ts'

/**
 * The writes of an emitted event not made yet: its own row, when it has no key (nothing can
 * conflict with it, so nothing waits for its answer). A subscriber about to write a statement of
 * its own takes them into it (`withWrites`, src/db/compose.ts); what no subscriber took is sent
 * ahead after the last one. The rows that name an event check it at commit (deferred foreign
 * keys), so a subscriber may write them before the event's row is.
 */
export interface EventWrites {
  /** The writes not made yet; the caller's statement makes them (none for the next caller). */
  take(): Write[]
}

export type EventHandler = (tx: Tx, event: DomainEvent, writes: EventWrites) => Promise<void>

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
    const done = await this.#run(tx, input)
    if (!done) return null
    await writeAhead(tx, done.writes.take())
    return done.event
  }

  /**
   * `emit`, leaving the writes no subscriber took (the event's own row, when it has no key) to the
   * caller: its next statement makes them (`withWrites`, src/db/compose.ts), or `writeAhead`
   * sends them. Until then the event is not written.
   */
  async emitForStatement<T extends EventType>(
    tx: Tx,
    input: EmitInput<T>,
  ): Promise<{ event: DomainEvent<T>; writes: Write[] } | null> {
    const done = await this.#run(tx, input)
    return done && { event: done.event, writes: done.writes.take() }
  }

  async #run<T extends EventType>(tx: Tx, input: EmitInput<T>) {
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
    const row = { ...event, data: event.data as Record<string, unknown> }
    const key = input.key ?? null
    if (key !== null && !(await eventRepo.insert(tx, { ...row, key }))) return null
    let pending = key === null
    const writes: EventWrites = {
      take: () => {
        if (!pending) return []
        pending = false
        return [eventRepo.insertWrite(tx, row)]
      },
    }
    for (const handler of this.#handlers.values()) await handler(tx, event as DomainEvent, writes)
    return { event, writes }
  }
}
