// Presence: a user is ONLINE while any API process holds a socket of theirs. Each process counts
// its sockets per user in `live_presence` and beats in `live_processes`; a process silent for
// `staleMs` is removed by any other one, with its counts. Changes of one user are serialised by a
// lock on the user's row, and `users.socket_status` (the User form's `socket.status`) follows.
// Sockets opened and closed while a write is under way are written together in the next one (one
// transaction and a handful of statements for the whole batch): thousands of clients reconnecting
// at once (after a deploy) cost a few transactions rather than one each.
import type { Db } from '../../db/index.ts'
import { liveRepo } from './repo.ts'

export interface PresenceDeps {
  db: Db
  processId: string
  /** a process whose heartbeat is older than this is gone */
  staleMs: number
}

export type SocketsElsewhere = Array<{ processId: string; sockets: number }>

/** socket changes written in one transaction at most (users' rows locked meanwhile) */
const MAX_BATCH = 500
/** a batch that lost a deadlock (another process locking in another order) is written again */
const ATTEMPTS = 3

interface Change {
  userId: string
  delta: 1 | -1
  resolve(elsewhere: SocketsElsewhere): void
  reject(err: unknown): void
}

export class Presence {
  constructor(private readonly deps: PresenceDeps) {}

  get processId() {
    return this.deps.processId
  }

  readonly #queue: Change[] = []
  #draining = false

  /**
   * Counts the new socket; answers the user's sockets held by other processes (read under the
   * user's lock, so two processes connecting at once each see the other's).
   */
  connected(userId: string): Promise<SocketsElsewhere> {
    return this.#enqueue(userId, 1)
  }

  async disconnected(userId: string): Promise<void> {
    await this.#enqueue(userId, -1)
  }

  #enqueue(userId: string, delta: 1 | -1): Promise<SocketsElsewhere> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ userId, delta, resolve, reject })
      if (!this.#draining) {
        this.#draining = true
        // the sockets of this turn of the event loop go together in the first batch
        setImmediate(() => void this.#drain())
      }
    })
  }

  async #drain() {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH)
      try {
        const elsewhere = await this.#write(batch)
        for (const c of batch) c.resolve(c.delta > 0 ? (elsewhere.get(c.userId) ?? []) : [])
      } catch (err) {
        for (const c of batch) c.reject(err)
      }
    }
    this.#draining = false
  }

  /** One transaction for a batch: each user's net change of sockets here, then their status. */
  async #write(batch: Change[]): Promise<Map<string, SocketsElsewhere>> {
    const net = new Map<string, number>()
    for (const c of batch) net.set(c.userId, (net.get(c.userId) ?? 0) + c.delta)
    const connecting = new Set(batch.filter((c) => c.delta > 0).map((c) => c.userId))
    const me = this.deps.processId
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.db.transaction().execute(async (tx) => {
          const locked = await liveRepo.lockUsers(tx, [...net.keys()])
          const up: Array<{ userId: string; n: number }> = []
          const down: Array<{ userId: string; n: number }> = []
          for (const userId of locked) {
            const n = net.get(userId)!
            if (n > 0) up.push({ userId, n })
            else if (n < 0) down.push({ userId, n: -n })
          }
          await liveRepo.addSockets(tx, me, up)
          await liveRepo.removeSockets(tx, me, down)
          await liveRepo.syncSocketStatus(tx, locked)
          const asked = locked.filter((u) => connecting.has(u))
          const rows = asked.length > 0 ? await liveRepo.socketsElsewhereOf(tx, me, asked) : []
          const byUser = new Map<string, SocketsElsewhere>()
          for (const r of rows) {
            const list = byUser.get(r.userId) ?? []
            list.push({ processId: r.processId, sockets: r.sockets })
            byUser.set(r.userId, list)
          }
          return byUser
        })
      } catch (err) {
        if (attempt >= ATTEMPTS || (err as { code?: string }).code !== '40P01') throw err
      }
    }
  }

  /**
   * This process is alive; processes that stopped beating are removed and their users re-checked.
   * `local` is this process's sockets per user: if others took it for dead (a long pause), its
   * presence is written again.
   */
  async beat(local: ReadonlyMap<string, number> = new Map()): Promise<void> {
    const known = await liveRepo.processKnown(this.deps.db, this.deps.processId)
    await liveRepo.heartbeat(this.deps.db, this.deps.processId)
    if (!known) {
      for (const [userId, sockets] of local) {
        await this.deps.db.transaction().execute(async (tx) => {
          if (!(await liveRepo.lockUser(tx, userId))) return
          await liveRepo.setSockets(tx, this.deps.processId, userId, sockets)
          await liveRepo.setSocketStatus(tx, userId, 'ONLINE')
        })
      }
    }
    const held = await this.deps.db
      .transaction()
      .execute((tx) => liveRepo.removeStaleProcesses(tx, this.deps.staleMs))
    await this.recheck(held)
  }

  /** Leaving: every socket of this process is gone at once. */
  async leave(): Promise<void> {
    const held = await this.deps.db
      .transaction()
      .execute((tx) => liveRepo.removeProcess(tx, this.deps.processId))
    await this.recheck(held)
  }

  private async recheck(userIds: string[]) {
    for (let i = 0; i < userIds.length; i += MAX_BATCH) {
      const some = userIds.slice(i, i + MAX_BATCH)
      await this.deps.db.transaction().execute(async (tx) => {
        await liveRepo.syncSocketStatus(tx, await liveRepo.lockUsers(tx, some))
      })
    }
  }
}
