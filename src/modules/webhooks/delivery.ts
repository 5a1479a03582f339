// Webhook deliveries (of money events, and the test deliveries owners ask for). The subscriber writes, in the event's own transaction, one delivery row per
// endpoint the event goes to (unique per endpoint and event) and the job of its first attempt. The
// job reads what it needs, makes the HTTP call outside any transaction, then records the attempt
// in one transaction (compare-and-set on the attempt number, so a job run twice records it once)
// together with the job of the next attempt, after the wait of the retry schedule.
import type { Logger } from 'pino'
import { type Db, inTransaction, type Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import {
  type OutboundPolicy,
  type PostResult,
  postJson,
  type Resolver,
} from '../../platform/outbound/post.ts'
import type { DomainEvent } from '../events/types.ts'
import { deliveryBody, isWebhookEvent, RETRY_DELAYS_MS, secretAad } from './catalog.ts'
import { webhookRepo } from './repo.ts'
import { signatureHeader } from './signing.ts'

export const DELIVER_JOB = 'webhooks.deliver'
export interface DeliverJob {
  deliveryId: string
  /** the attempt this job makes, from 1 */
  attempt: number
}

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'webhooks.deliver': DeliverJob
  }
}

export interface DeliveryDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: JobQueue
  secrets: SecretBox
  /** which addresses and schemes calls may use, and their deadline */
  policy: OutboundPolicy
  /** the wait after each failed attempt; attempts in all: its length + 1 */
  retryDelaysMs?: readonly number[]
  /** host name resolution (default: the system's) */
  resolve?: Resolver
}

const dedupeKey = (job: DeliverJob) => `${DELIVER_JOB}:${job.deliveryId}:${job.attempt}`

export class WebhookDelivery {
  readonly #delays: readonly number[]

  constructor(private readonly deps: DeliveryDeps) {
    this.#delays = deps.retryDelaysMs ?? RETRY_DELAYS_MS
  }

  /** The events subscriber: the deliveries of a money event and their first attempts. */
  readonly onEvent = async (tx: Tx, event: DomainEvent): Promise<void> => {
    // A test delivery goes to the one endpoint its owner named (the service checked the owner).
    const endpoints =
      event.type === 'webhook.test'
        ? [{ id: event.data.endpointId }]
        : isWebhookEvent(event.type)
          ? await webhookRepo.matching(tx, event)
          : []
    if (endpoints.length === 0) return
    const now = this.deps.clock.now()
    const body = deliveryBody(event)
    const created = await webhookRepo.insertDeliveries(
      tx,
      endpoints.map((e) => ({
        id: newId(now.getTime()),
        endpointId: e.id,
        eventId: event.id,
        eventType: event.type,
        body,
        maxAttempts: this.#delays.length + 1,
        nextAttemptAt: now,
        now,
      })),
    )
    for (const d of created) {
      const job = { deliveryId: d.id, attempt: 1 }
      await this.deps.jobs.enqueue(tx, DELIVER_JOB, job, { dedupeKey: dedupeKey(job) })
    }
  }

  /**
   * The secrets that sign an attempt: the endpoint's own, then the one a rotation replaced while it
   * has not expired. Undefined when the current one cannot be opened (a key-encryption key missing
   * from the configuration): the attempt then fails like any other and the schedule goes on.
   */
  #secrets(
    d: {
      id: string
      endpointId: string
      secretSealed: string
      previousSecretSealed: string | null
      previousSecretExpiresAt: Date | null
    },
    now: Date,
  ): string[] | undefined {
    const open = (sealed: string) => {
      try {
        return this.deps.secrets.open(sealed, secretAad(d.endpointId))
      } catch (err) {
        this.deps.log.error(
          {
            deliveryId: d.id,
            endpointId: d.endpointId,
            err: err instanceof Error ? err.message : String(err),
          },
          'webhook secret cannot be opened',
        )
        return undefined
      }
    }
    const current = open(d.secretSealed)
    if (current === undefined) return undefined
    const expires = d.previousSecretExpiresAt
    const previous =
      d.previousSecretSealed && expires && expires > now ? open(d.previousSecretSealed) : undefined
    return previous === undefined ? [current] : [current, previous]
  }

  /** The job: one attempt of one delivery. */
  readonly deliver = async (job: DeliverJob): Promise<void> => {
    const { db, clock, log } = this.deps
    const d = await webhookRepo.forSending(db, job.deliveryId)
    // Gone with its endpoint, finished, or this attempt already recorded: nothing to send.
    if (d?.status !== 'pending' || d.attempts >= job.attempt) return
    const sentAt = clock.now()
    const timestamp = Math.floor(sentAt.getTime() / 1000)
    const secrets = this.#secrets(d, sentAt)
    const result: PostResult =
      secrets === undefined
        ? { kind: 'failed', reason: 'the signing secret cannot be opened' }
        : await postJson(
            d.url,
            d.body,
            {
              'user-agent': 'WorkPay-Webhooks/1',
              'webhook-id': d.eventId,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': signatureHeader(secrets, d.eventId, timestamp, d.body),
              'webhook-attempt': String(job.attempt),
            },
            this.deps.policy,
            this.deps.resolve,
          )
    const delivered = result.kind === 'answered' && result.status >= 200 && result.status < 300
    const now = clock.now()
    const last = job.attempt >= d.maxAttempts
    const wait = this.#delays[job.attempt - 1] ?? this.#delays.at(-1) ?? 0
    const next = delivered || last ? null : new Date(now.getTime() + wait)
    const error =
      result.kind === 'answered'
        ? delivered
          ? null
          : `HTTP ${result.status}`
        : `${result.kind === 'refused' ? 'refused' : 'failed'}: ${result.reason}`.slice(0, 500)
    await inTransaction(db, async (tx) => {
      const recorded = await webhookRepo.recordAttempt(tx, d.id, job.attempt, {
        status: delivered ? 'delivered' : last ? 'failed' : 'pending',
        lastStatusCode: result.kind === 'answered' ? result.status : null,
        lastError: error,
        responseExcerpt: result.kind === 'answered' ? result.excerpt.slice(0, 256) : null,
        nextAttemptAt: next,
        deliveredAt: delivered ? now : null,
        now,
      })
      if (recorded && next) {
        const following = { deliveryId: d.id, attempt: job.attempt + 1 }
        await this.deps.jobs.enqueue(tx, DELIVER_JOB, following, {
          runAt: next,
          dedupeKey: dedupeKey(following),
        })
      }
    })
    log.info(
      {
        event: 'webhook.attempt',
        deliveryId: d.id,
        endpointId: d.endpointId,
        eventId: d.eventId,
        attempt: job.attempt,
        outcome: delivered ? 'delivered' : last ? 'failed' : 'retry',
        status: result.kind === 'answered' ? result.status : null,
        error,
      },
      'webhook attempt',
    )
  }
}
