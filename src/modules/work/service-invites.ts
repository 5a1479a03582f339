// Invites (/v1/invite): the creator of a job invites a talent; the talent accepts (and is assigned)
// or declines; the creator may cancel a pending invite. At most one pending invite per job and
// talent; accepting one expires the job's other pending invites and applications.
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { FINAL_PHASES, phaseOf } from '../collections/module.ts'
import { assertTopLevel, assignTalent, pageInfo, pageOf, visibleJob, type WorkDeps } from './context.ts'
import { embeddedLookups, type InviteRow, inviteForm, listEmbeds, lookups } from './forms.ts'
import { audit, inviteRepo } from './repo.ts'
import type { ListInvitesQueryT, SendInviteInput } from './schemas.ts'

export class InviteService {
  constructor(private readonly deps: WorkDeps) {}

  async #form(row: InviteRow) {
    const l = await lookups(
      this.deps.collections,
      this.deps.db,
      [row.senderId, row.receiverId],
      [row.collectionId],
    )
    return inviteForm(row, l)
  }

  /** An invite the caller sent or received (404 for anyone else). */
  async #mine(userId: string, id: string) {
    const row = await inviteRepo.get(this.deps.db, id)
    if (!row || (row.senderId !== userId && row.receiverId !== userId)) throw errors.notFound('invite')
    return row
  }

  /** Sends an invite (creator only, to a job that has no talent yet). */
  async send(userId: string, input: SendInviteInput) {
    const { deps } = this
    const message = (input.message ?? '').trim()
    // The talent's rules on who may invite them (read before the transaction opens).
    if (input.recipient !== userId) await deps.connections.check(input.recipient, userId, 'SEND_INVITE')
    return inTransaction(deps.db, async (tx) => {
      const job = await visibleJob(deps, tx, input.collection, userId, true)
      if (job.creatorId !== userId) throw errors.forbidden('Only the job’s creator may invite talents to it')
      assertTopLevel(job, 'Invites')
      const phase = phaseOf(job)
      if (FINAL_PHASES.includes(phase))
        throw errors.named('COLLECTION_NOT_OPEN', `This job is ${phase}; it takes no more invites`)
      if (job.receiverId) throw errors.named('JOB_HAS_TALENT', 'This job already has its talent')
      if (input.recipient === userId) throw errors.field('/recipient', 'you cannot invite yourself')
      const now = deps.clock.now()
      const id = newId(now.getTime())
      // The recipient's and the pending invite's checks, the invite, the job's record of it and the
      // audit record in one statement (nothing is written when a check fails), with the invite's
      // people and job as the answer shows them.
      const sent = await inviteRepo.send(
        tx,
        {
          id,
          collectionId: job.id,
          senderId: userId,
          receiverId: input.recipient,
          message,
          createdAt: now,
          updatedAt: now,
        },
        listEmbeds(deps.collections),
        (written) => deps.collections.jobs.addInviteSql(job.id, id, input.recipient, written),
        {
          id: newId(now.getTime()),
          userId,
          action: 'work.invite_sent',
          meta: { inviteId: id, collectionId: job.id, to: input.recipient },
        },
      )
      if (!sent.receiverLive) throw errors.notFound('recipient')
      if (sent.pendingId || !sent.invite)
        throw errors.named('INVITE_ALREADY_PENDING', 'This talent already has a pending invite to this job')
      await deps.events.emit(tx, {
        type: 'invite.sent',
        actorId: userId,
        audience: [input.recipient],
        collectionId: job.id,
        data: { inviteId: id, collectionId: job.id, receiverId: input.recipient },
      })
      const { invite } = sent
      return inviteForm(
        invite,
        embeddedLookups(
          deps.collections.jobs,
          [
            [invite.senderId, invite.senderJson],
            [invite.receiverId, invite.receiverJson],
          ],
          [[invite.collectionId, invite.collectionJson]],
        ),
      )
    })
  }

  /** The invited talent accepts: they become the job's talent (see assignTalent). */
  async accept(userId: string, id: string) {
    const { deps } = this
    const seen = await this.#mine(userId, id)
    if (seen.receiverId !== userId) throw errors.forbidden('Only the invited talent may accept this invite')
    await inTransaction(deps.db, async (tx) => {
      const job = await deps.collections.jobs.get(tx, seen.collectionId, true)
      if (!job) throw errors.notFound('collection')
      const invite = (await inviteRepo.get(tx, id, true))!
      if (invite.status !== 'pending')
        throw errors.named('INVITE_ALREADY_ANSWERED', `This invite is already ${invite.status}`)
      await assignTalent(deps, tx, job, userId, 'invitee', { inviteId: id })
      const now = deps.clock.now()
      await inviteRepo.setStatus(tx, id, 'accepted', now)
      await deps.events.emit(tx, {
        type: 'invite.accepted',
        actorId: userId,
        audience: [invite.senderId],
        collectionId: job.id,
        isPublic: !job.isPrivate,
        data: { inviteId: id, collectionId: job.id },
      })
      await audit(tx, now, userId, 'work.invite_accepted', { inviteId: id, collectionId: job.id })
    })
    return this.#form((await inviteRepo.get(deps.db, id))!)
  }

  /** The invited talent declines, or the creator cancels, a pending invite. */
  async close(userId: string, id: string, how: 'rejected' | 'cancelled') {
    const { deps } = this
    const seen = await this.#mine(userId, id)
    if (how === 'rejected' && seen.receiverId !== userId)
      throw errors.forbidden('Only the invited talent may decline this invite')
    if (how === 'cancelled' && seen.senderId !== userId)
      throw errors.forbidden('Only the sender may cancel this invite')
    await inTransaction(deps.db, async (tx) => {
      const invite = (await inviteRepo.get(tx, id, true))!
      if (invite.status !== 'pending')
        throw errors.named('INVITE_ALREADY_ANSWERED', `This invite is already ${invite.status}`)
      const now = deps.clock.now()
      await inviteRepo.setStatus(tx, id, how, now)
      await deps.collections.jobs.dropInvitee(tx, invite.collectionId, invite.receiverId)
      await deps.events.emit(tx, {
        type: how === 'rejected' ? 'invite.declined' : 'invite.cancelled',
        actorId: userId,
        audience: [how === 'rejected' ? invite.senderId : invite.receiverId],
        collectionId: invite.collectionId,
        data: { inviteId: id, collectionId: invite.collectionId },
      })
      await audit(tx, now, userId, how === 'rejected' ? 'work.invite_declined' : 'work.invite_cancelled', {
        inviteId: id,
        collectionId: invite.collectionId,
      })
    })
    return this.#form((await inviteRepo.get(deps.db, id))!)
  }

  async get(userId: string, id: string) {
    return this.#form(await this.#mine(userId, id))
  }

  /** The invites of `ids` the caller sent or received, in their API form, by id. */
  async visibleForms(userId: string, ids: string[]) {
    const { db, collections } = this.deps
    const rows = await inviteRepo.ofParty(db, [...new Set(ids)], userId)
    const l = await lookups(
      collections,
      db,
      rows.flatMap((r) => [r.senderId, r.receiverId]),
      rows.map((r) => r.collectionId),
    )
    return new Map(rows.map((r) => [r.id, inviteForm(r, l)]))
  }

  /** The caller's sent and received invites, newest first. */
  async list(userId: string, q: ListInvitesQueryT) {
    const { db, collections } = this.deps
    const p = pageOf(q)
    const collectionId = q.collection ?? q.data
    if (q.collection && q.data && q.collection !== q.data)
      throw errors.field('/data', '`data` and `collection` name different jobs')
    const filters = {
      userId,
      ...(q.role ? { role: q.role } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(collectionId ? { collectionId } : {}),
    }
    // One statement: the page, its total, and the people and jobs it names.
    const { total, rows } = await inviteRepo.page(db, filters, p, listEmbeds(collections))
    const l = embeddedLookups(
      collections.jobs,
      rows.flatMap((r): [string, unknown][] => [
        [r.senderId, r.senderJson],
        [r.receiverId, r.receiverJson],
      ]),
      rows.map((r): [string, unknown] => [r.collectionId, r.collectionJson]),
    )
    return {
      data: rows.map((r) => inviteForm(r, l)),
      ...pageInfo(p, total),
    }
  }
}
