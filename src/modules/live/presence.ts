// Presence: a user is ONLINE while any API process holds a socket of theirs. Each process counts
// its sockets per user in `live_presence` and beats in `live_processes`; a process silent for
// `staleMs` is removed by any other one, with its counts. Changes of one user are serialised by a
// lock on the user's row, and `users.socket_status` (the User form's `socket.status`) follows.
import type { Db } from '../../db/index.ts'
import { liveRepo } from './repo.ts'

export interface PresenceDeps {
  db: Db
  processId: string
  /** a process whose heartbeat is older than this is gone */
  staleMs: number
}

export class Presence {
  constructor(private readonly deps: PresenceDeps) {}

  get processId() {
    return this.deps.processId
  }

  /**
   * Counts the new socket; answers the user's sockets held by other processes (read under the
   * user's lock, so two processes connecting at once each see the other's).
   */
  async connected(userId: string): Promise<Array<{ processId: string; sockets: number }>> {
    return this.deps.db.transaction().execute(async (tx) => {
      if (!(await liveRepo.lockUser(tx, userId))) return []
      await liveRepo.addSocket(tx, this.deps.processId, userId)
      await liveRepo.setSocketStatus(tx, userId, 'ONLINE')
      return liveRepo.socketsElsewhere(tx, this.deps.processId, userId)
    })
  }

  async disconnected(userId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      if (!(await liveRepo.lockUser(tx, userId))) return
      await liveRepo.removeSocket(tx, this.deps.processId, userId)
      if (!(await liveRepo.isConnected(tx, userId))) await liveRepo.setSocketStatus(tx, userId, 'OFFLINE')
    })
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
    for (const userId of userIds) {
      await this.deps.db.transaction().execute(async (tx) => {
        if (!(await liveRepo.lockUser(tx, userId))) return
        if (!(await liveRepo.isConnected(tx, userId))) await liveRepo.setSocketStatus(tx, userId, 'OFFLINE')
      })
    }
  }
}
