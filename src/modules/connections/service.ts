// Connection filters: a user's rules on who may open a conversation with them, invite them to a
// job or apply to their jobs. The modules that make those connections call `check` before they
// do; a refusal is 403 CONNECTION_FILTERED naming the rule.
import type { Db, Executor } from '../../db/index.ts'
import type { ReadCache } from '../../db/read-cache.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { connectionFilterRepo } from './repo.ts'
import { type Facts, type FilterEvent, normalise, passes, type Rule, refusal } from './rules.ts'

/** What the account module tells of a person: their public profile. */
export interface PeopleFacts {
  getPublicUser(
    viewerId: string,
    id: string,
  ): Promise<{ score: number; profile: { verified: boolean; talent?: { tags?: string[] } } }>
}

/** What other modules call before they connect someone to a user. */
export interface ConnectionGate {
  check(ownerId: string, actorId: string, event: FilterEvent): Promise<void>
}

export interface FilterInput {
  event: string
  key: string
  decider: string
  value: unknown
}

export type FilterRow = Awaited<ReturnType<typeof connectionFilterRepo.list>>[number]

function form(r: FilterRow) {
  return {
    _id: r.id,
    event: r.event,
    key: r.key,
    decider: r.decider,
    value: r.value as Rule['value'],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }
}

export interface ConnectionFilterDeps {
  db: Db
  clock: Clock
  people: PeopleFacts
  /** a person's rules of one event as `check` reads them, kept by the process (absent: always read) */
  rules?: ReadCache<FilterRow[]>
}

export class ConnectionFilterService implements ConnectionGate {
  constructor(private readonly deps: ConnectionFilterDeps) {}

  /** POST /v1/conn-filter/: a new rule; 409 when the caller has one for this event and key. */
  async create(userId: string, input: FilterInput) {
    const rule = normalise(input)
    const ok = await connectionFilterRepo.insert(this.deps.db, {
      id: newId(),
      userId,
      ...rule,
      now: this.deps.clock.now(),
    })
    if (!ok)
      throw errors.named(
        'CONNECTION_RULE_EXISTS',
        `You already have a ${rule.key} rule for ${rule.event}; change it with PATCH /v1/conn-filter/`,
      )
    return this.one(userId, { event: rule.event, key: rule.key })
  }

  /** PATCH /v1/conn-filter/: changes the rule of this event and key; 404 when there is none. */
  async update(userId: string, input: FilterInput) {
    const rule = normalise(input)
    const ok = await connectionFilterRepo.update(this.deps.db, {
      userId,
      ...rule,
      now: this.deps.clock.now(),
    })
    if (!ok) throw errors.notFound('connection filter')
    return this.one(userId, { event: rule.event, key: rule.key })
  }

  /** One rule of the caller: of this event and key, or the most recently changed; 404 when none. */
  async one(userId: string, f: { event?: string; key?: string } = {}, ex: Executor = this.deps.db) {
    const [row] = await connectionFilterRepo.list(ex, userId, f)
    if (!row) throw errors.notFound('connection filter')
    return form(row)
  }

  async list(userId: string) {
    return (await connectionFilterRepo.list(this.deps.db, userId)).map(form)
  }

  async remove(userId: string, id: string) {
    if (!(await connectionFilterRepo.remove(this.deps.db, userId, id)))
      throw errors.notFound('connection filter')
    return {}
  }

  /** Refuses (403 CONNECTION_FILTERED) when `actorId` fails one of `ownerId`'s rules for `event`. */
  async check(ownerId: string, actorId: string, event: FilterEvent) {
    if (ownerId === actorId) return
    const load = () => connectionFilterRepo.list(this.deps.db, ownerId, { event })
    const rows = this.deps.rules ? await this.deps.rules.get(ownerId, load, event) : await load()
    if (rows.length === 0) return
    const facts = await this.#facts(actorId)
    for (const row of rows) {
      const rule = { event, key: row.key, decider: row.decider, value: row.value } as Rule
      if (!passes(rule, facts)) throw errors.connectionFiltered(refusal(rule), form(row))
    }
  }

  async #facts(userId: string): Promise<Facts> {
    // The person's own view of their profile: a private profile hides nothing from the check.
    const user = await this.deps.people.getPublicUser(userId, userId)
    return { tags: user.profile.talent?.tags ?? [], afroScore: user.score, verified: user.profile.verified }
  }
}
