// HTTP for a job's life: the update (#29, which also takes the SDK's `status`), the bulk update,
// and the explicit steps (deliver, ask for changes, complete, cancel). Each route maps to one
// service call.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  Collection,
  type CollectionService,
  CollectionUpdateShape,
  UpdateCollectionBody,
  UpdateManyCollectionsBody,
} from '../collections/types.ts'
import { CancelBody, CreateManyBody, DeliverBody } from './schemas.ts'
import type { LifecycleService } from './service-lifecycle.ts'
import type { UpdateService } from './service-updates.ts'

const STATES =
  'A job is `pending` (posted) → `waiting` (a talent assigned, payment awaited) → `ongoing` (assigned and its escrow paid; `recipientCompletedJob` once delivered) → `completed`, or `cancelled`, or `disputed` → `resolved`. A step the caller may not take is 403, one the job is already past or closed for is 409, one that does not start from the job’s state is 422.'

export const jobRoutes: FastifyPluginAsyncTypebox<{
  collections: CollectionService
  lifecycle: LifecycleService
  updates: UpdateService
}> = async (app, { collections, lifecycle, updates }) => {
  const tags = ['collections']
  const security = bearer
  const full = (id: string, userId: string) => collections.get(id, userId)

  app.patch(
    '/v1/collection/:id',
    {
      schema: {
        operationId: 'updateCollection',
        summary: 'Update a collection, or move its job a step (#29)',
        description: `Details (type, name, category, description, paymentFee, isPrivate, deliveryDate, tags, attachments): the creator only (403; 404 when hidden), at least one field, refused with 409 once an escrow on the collection is paid; \`paymentFee\` follows #26 and is answered as a string with two decimals. \`paymentWebHook\` (the creator; \`null\` or \`""\` removes it) may change even once the escrow is paid, in a request without \`status\` or \`progress\`; the answer carries \`paymentWebHookSecret\` when the collection had none (docs/webhooks.md). \`status\` moves the job as the SDK does: \`completed\` from the talent delivers it, from the creator completes it (the rest of the escrow is released); \`cancelled\` (the creator, with an optional \`cancellationReason\`: without one, as the SDK sends it, the reason is \`No reason given\`) cancels it; \`ongoing\` from the creator asks for changes to a delivery. \`progress\` (0–100) is the talent’s, on a job without deliverables. On a deliverable (a child collection without an escrow) the job’s talent sets \`status\` (\`pending\`, \`ongoing\`, \`completed\`) and \`progress\`, and the job’s progress becomes their average. Details sent with \`status\` or \`progress\` must equal the current ones (400 otherwise). ${STATES} Answers the older update shape with message \`Accepted\`.`,
        tags,
        security,
        params: IdParams,
        body: UpdateCollectionBody,
        response: {
          200: envelope(CollectionUpdateShape, 'Accepted'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'no field, a field that fails the rules of #26, a status without the fields it needs, or details changed along with a status or progress',
            FORBIDDEN: {
              when: 'the caller may not make this change',
              message: 'Only the creator may change this collection',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            COLLECTION_LOCKED: {
              when: 'details of a collection whose escrow is paid',
              message: 'The escrow of this collection is paid; it can no longer be changed',
            },
            JOB_ALREADY_IN_STATE: 'the job is already where the step leads',
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            ESCROW_RELEASE_IN_PROGRESS: 'a cancellation after the whole escrow was released',
            JOB_STATE_MISMATCH: {
              when: 'a status the job cannot take from where it is',
              message:
                'Cannot complete the job (accept the delivery and release the escrow): the job must be delivered, and it is ongoing',
            },
            STATUS_CHANGE_NOT_ALLOWED: 'a status that has its own step, or none',
            PROGRESS_FOLLOWS_DELIVERABLES: 'a progress for a job whose deliverables set it',
            ESCROW_NOT_FUNDED: 'completing a job whose escrow is not paid',
            JOB_IN_DISPUTE: 'completing a job in dispute',
            PAYMENT_PERCENTAGE_UNAVAILABLE: 'a paymentPercentage without a paid escrow and a talent',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await updates.patch(caller(req).userId, req.params.id, req.body), 'Accepted'),
  )

  app.patch(
    '/v1/collection/many/update',
    {
      schema: {
        operationId: 'updateManyCollections',
        summary: 'Update several collections at once',
        description:
          'The SDK’s updateManyCollections: `{ collections: [{ id, ...fields }] }` (the SDK wraps it once more: `{ collections: { collections: [...] } }`, accepted too), at most 50. Each item follows PATCH /v1/collection/{id}, all in one transaction: every item is applied or none (an error names the item, e.g. `/collections/2/status`). Completing or cancelling a job moves its escrow and is refused here (422): use PATCH /v1/collection/{id}. Answers the items in the older update shape.',
        tags,
        security,
        body: UpdateManyCollectionsBody,
        response: {
          200: envelope(Type.Array(CollectionUpdateShape), 'Accepted'),
          ...guardedErrors({
            VALIDATION_ERROR: 'an item fails the rules of PATCH /v1/collection/{id} (its path names it)',
            FORBIDDEN: {
              when: 'an item the caller may not change',
              message: '/collections/0: Only the creator may change this collection',
            },
            NOT_FOUND: {
              when: 'an item is unknown or hidden',
              message: '/collections/1: collection not found',
            },
            COLLECTION_LOCKED: {
              when: 'an item’s escrow is paid',
              message: '/collections/0: The escrow of this collection is paid; it can no longer be changed',
            },
            JOB_ALREADY_IN_STATE: 'the job is already where the step leads',
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            STATUS_CHANGE_NOT_ALLOWED: {
              when: 'a completion or cancellation (not in bulk), or a status that has its own step',
              message: 'Completing or cancelling a job moves its escrow: use PATCH /v1/collection/{id}',
            },
            JOB_STATE_MISMATCH: 'a step an item cannot take from where it is',
            PROGRESS_FOLLOWS_DELIVERABLES: 'a progress for a job whose deliverables set it',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const c = req.body.collections
      const items = Array.isArray(c) ? c : c.collections
      return ok(await updates.updateMany(caller(req).userId, items), 'Accepted')
    },
  )

  app.post(
    '/v1/collection/many',
    {
      schema: {
        operationId: 'createManyCollections',
        summary: 'Create several child collections (deliverables) under a job',
        description:
          '`{ type, parent, collections: [{ name, description, ...the fields of #26 }] }`, at most 50: each item is created as with #26 under `parent`, one of the caller’s own top-level collections (404 when hidden, 403 when someone else’s, 422 when it is itself a child), all in one transaction (every item or none; an error names the item, e.g. `/collections/1/name`). Children without an escrow of their own are the job’s deliverables: its talent reports their progress. (The client SDK’s createMany posts this body to POST /v1/collection, which takes one collection; call this path instead.) Answers the created collections in full form.',
        tags,
        security,
        body: CreateManyBody,
        response: {
          200: envelope(Type.Array(Collection), 'Collections created'),
          ...guardedErrors({
            VALIDATION_ERROR: 'an item fails the rules of #26 (its path names it)',
            FORBIDDEN: {
              when: '`parent` is someone else’s collection',
              message: 'Child collections can only be added under your own collections',
            },
            NOT_FOUND: {
              when: '`parent` does not exist or is hidden',
              message: 'collection not found',
            },
            COLLECTION_NESTING_TOO_DEEP: {
              when: '`parent` is itself a child collection',
              message: '/collections/0: A child collection cannot have children of its own',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await updates.createMany(caller(req).userId, req.body), 'Collections created'),
  )

  app.post(
    '/v1/collection/:id/deliver',
    {
      schema: {
        operationId: 'deliverJob',
        summary: 'Deliver a job (its talent)',
        description: `The assigned talent marks an ongoing job delivered: \`recipientCompletedJob\` is true and \`delivery\` holds the note and the attachments (the talent’s own uploads, 400 otherwise). 409 when already delivered. ${STATES}`,
        tags,
        security,
        params: IdParams,
        body: DeliverBody,
        response: {
          200: envelope(Collection, 'Job delivered'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or an attachment is not one of the caller’s files',
            FORBIDDEN: {
              when: 'the step is not the caller’s',
              message: 'Only the job’s assigned talent may deliver the job',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            JOB_ALREADY_IN_STATE: {
              when: 'the job is already delivered',
              message: 'This job is already delivered',
            },
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            JOB_STATE_MISMATCH: {
              when: 'the job is not ongoing',
              message: 'Cannot deliver the job: the job must be ongoing, and it is waiting',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const userId = caller(req).userId
      await lifecycle.deliver(userId, req.params.id, req.body ?? {})
      return ok(await full(req.params.id, userId), 'Job delivered')
    },
  )

  app.post(
    '/v1/collection/:id/request-changes',
    {
      schema: {
        operationId: 'requestJobChanges',
        summary: 'Ask for changes to a delivery (its creator)',
        description: `The creator sends a delivered job back to \`ongoing\` (\`recipientCompletedJob\` false; the delivery stays on record). ${STATES}`,
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Collection, 'Changes requested'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is not the job’s creator',
              message: 'Only the job’s creator may ask for changes to the delivery',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            JOB_ALREADY_IN_STATE: {
              when: 'the job is ongoing already',
              message: 'This job is already ongoing',
            },
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            JOB_STATE_MISMATCH: {
              when: 'the job is not delivered',
              message: 'Cannot ask for changes to the delivery: the job must be delivered, and it is pending',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const userId = caller(req).userId
      await updates.patch(userId, req.params.id, { status: 'ongoing' })
      return ok(await full(req.params.id, userId), 'Changes requested')
    },
  )

  app.post(
    '/v1/collection/:id/complete',
    {
      schema: {
        operationId: 'completeJob',
        summary: 'Complete a delivered job (its creator)',
        description: `The creator accepts the delivery: what remains in the job’s escrow is released to the talent (one release, or the last part after partial releases with POST /v1/payment/release), then the job is \`completed\` (progress 100). 422 when the escrow is not paid or the chain cannot price the release; the payout legs then show in \`payoutStatus\` and its companions. Calling it again after a failure never releases twice. ${STATES}`,
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Collection, 'Job completed; the payment is being released'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is not the job’s creator',
              message:
                'Only the job’s creator may complete the job (accept the delivery and release the escrow)',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            JOB_ALREADY_IN_STATE: {
              when: 'the job is completed already',
              message: 'This job is already completed',
            },
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            ESCROW_RELEASE_IN_PROGRESS: 'the escrow is being released',
            JOB_STATE_MISMATCH: 'the job is not delivered',
            ESCROW_NOT_FUNDED: {
              when: 'its escrow is not paid',
              message: 'The job’s escrow is not paid: fund it (POST /v1/payment/) before completing',
            },
            JOB_IN_DISPUTE: 'the job is in dispute',
            ESCROW_CHILD_FUNDING_PENDING: 'a child escrow funded from it is not settled yet',
            ESCROW_NO_RECEIVER: 'the job has no talent',
            UNAVAILABLE: {
              when: 'the chain cannot price the release right now',
              message: 'The chain is unreachable right now; try again shortly',
            },
            COIN_HALTED: {
              when: "the escrow's coin is halted by settlement until an operator resumes it",
              message: 'Payments in AVAX are paused while the platform checks its balances; try again later',
              data: { coin: 'avax' },
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const userId = caller(req).userId
      await lifecycle.complete(userId, req.params.id)
      return ok(await full(req.params.id, userId), 'Job completed; the payment is being released')
    },
  )

  app.post(
    '/v1/collection/:id/cancel',
    {
      schema: {
        operationId: 'cancelJob',
        summary: 'Cancel a job before delivery (its creator)',
        description: `The creator cancels a pending, waiting or ongoing job that is not delivered (a delivered job is disputed instead: 422) with a \`reason\` (\`cancellationReason\`). Pending invites and applications expire. An unfunded job just closes (an escrow awaiting payment is cancelled and what it received goes back); a funded one’s escrow goes back to the creator’s wallet in full (price and fee; the platform keeps no fee and pays the gas), or \`paymentPercentage\` of what remains is released to the talent (with its share of the fee) and the rest returned. The money moves in the background; \`escrowReleased\` records the split once it is sent. ${STATES}`,
        tags,
        security,
        params: IdParams,
        body: CancelBody,
        response: {
          200: envelope(Collection, 'Job cancelled'),
          ...guardedErrors({
            VALIDATION_ERROR: 'no reason, or a paymentPercentage outside 0–100',
            FORBIDDEN: {
              when: 'the caller is not the job’s creator',
              message: 'Only the job’s creator may cancel the job (after delivery, raise a dispute instead)',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            JOB_ALREADY_IN_STATE: {
              when: 'the job is cancelled already',
              message: 'This job is already cancelled',
            },
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            ESCROW_RELEASE_IN_PROGRESS: 'its whole escrow was released',
            JOB_STATE_MISMATCH: {
              when: 'the job is delivered or in dispute',
              message:
                'Cannot cancel the job (after delivery, raise a dispute instead): the job must be pending or waiting or ongoing, and it is delivered',
            },
            PAYMENT_PERCENTAGE_UNAVAILABLE: 'a paymentPercentage without a paid escrow and a talent',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const userId = caller(req).userId
      await lifecycle.cancel(userId, req.params.id, req.body)
      return ok(await full(req.params.id, userId), 'Job cancelled')
    },
  )
}
