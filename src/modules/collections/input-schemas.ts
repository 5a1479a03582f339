// The requests of the collections API: the bodies and queries of #26–#30 and of the bulk update.
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Str } from '../../http/schemas.ts'
import { INSPECTION_DAYS_DEFAULT, INSPECTION_DAYS_MAX, INSPECTION_DAYS_MIN } from './inspection.ts'
import { MONEY_MAX, MONEY_PATTERN } from './payment-fee.ts'

/** Text without NUL characters (PostgreSQL text cannot hold them). */
const Text = (maxLength: number, opts: Record<string, unknown> = {}) =>
  Str(maxLength, { pattern: '^[^\\u0000]*$', ...opts })

/** The price in USD: a decimal string (the API contract) or a JSON number (the public SDK). */
const PaymentFee = Type.Union(
  [
    Type.String({ pattern: MONEY_PATTERN, description: 'decimal string, e.g. `150.50`' }),
    Type.Number({ minimum: 0, maximum: MONEY_MAX, description: 'JSON number, e.g. `150.5`' }),
  ],
  {
    description:
      'price in USD, 0 or more with at most two decimals, as a decimal string or a JSON number (a number that is not exactly a cent amount is refused)',
  },
)
const DeliveryDate = Type.String({ format: 'date', description: '`YYYY-MM-DD`, today or later (UTC)' })
const CollectionType = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[A-Za-z0-9][A-Za-z0-9 _-]*$',
  description: 'e.g. `job`',
})
const TagNames = Type.Array(Text(50), { maxItems: 30, description: 'tag names; at most 30' })

const PAYMENT_WEB_HOOK =
  'called with signed JSON when this collection’s payment moves (escrow.funded, escrow.released): an https URL on the public internet (in development and tests also http://localhost); see docs/webhooks.md'
const PaymentWebHook = Type.String({ minLength: 1, maxLength: 2048, description: PAYMENT_WEB_HOOK })

const Attachments = Type.Array(Id(), {
  maxItems: 20,
  description:
    'ids of your own uploaded files (#31, #32), at most 20; shown as file summaries in `attachmentData`',
})

export const CreateCollectionBody = Type.Object(
  {
    type: CollectionType,
    name: Text(200, { minLength: 1 }),
    category: Type.Optional(Text(100)),
    description: Text(10_000, { minLength: 1 }),
    paymentFee: Type.Optional(PaymentFee),
    isPrivate: Type.Optional(Type.Boolean()),
    deliveryDate: Type.Optional(DeliveryDate),
    tags: Type.Optional(TagNames),
    isParentFunded: Type.Optional(Type.Boolean()),
    meta: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'free-form object, at most 4 KiB as JSON' }),
    ),
    parent: Type.Optional(Id('id of the parent collection (one of the caller’s own top-level ones)')),
    attachments: Type.Optional(Attachments),
    paymentWebHook: Type.Optional(PaymentWebHook),
    inspectionPeriodDays: Type.Optional(
      Type.Integer({
        minimum: INSPECTION_DAYS_MIN,
        maximum: INSPECTION_DAYS_MAX,
        description: `days a delivery waits for the creator before the job completes by itself and its escrow goes to the talent, ${INSPECTION_DAYS_MIN}–${INSPECTION_DAYS_MAX} (default ${INSPECTION_DAYS_DEFAULT})`,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        type: 'job',
        name: 'Landing page',
        description: 'One responsive page with a contact form',
        paymentFee: '150.00',
        deliveryDate: '2031-01-01',
        tags: ['design'],
      },
    ],
  },
)
export type CreateCollectionInput = Static<typeof CreateCollectionBody>

/** The statuses the client SDK sends (ICollectionStatus). */
export const CollectionStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('waiting'),
    Type.Literal('ongoing'),
    Type.Literal('completed'),
    Type.Literal('cancelled'),
    Type.Literal('deleted'),
  ],
  {
    description:
      'the status asked for: `completed` (the creator completes a delivered job; the talent delivers it), `cancelled` (the creator cancels, with an optional `cancellationReason`), `ongoing` (the creator asks for changes to a delivery); for a deliverable, its talent sets `pending`, `ongoing` or `completed`',
  },
)

const updateFields = {
  type: Type.Optional(CollectionType),
  name: Type.Optional(Text(200, { minLength: 1 })),
  category: Type.Optional(Text(100)),
  description: Type.Optional(Text(10_000, { minLength: 1 })),
  paymentFee: Type.Optional(PaymentFee),
  isPrivate: Type.Optional(Type.Boolean()),
  deliveryDate: Type.Optional(DeliveryDate),
  tags: Type.Optional(TagNames),
  attachments: Type.Optional(Attachments),
  status: Type.Optional(CollectionStatus),
  progress: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'the talent’s progress, 0–100 (deliverables, or a job without any)',
    }),
  ),
  cancellationReason: Type.Optional(
    Text(2000, {
      minLength: 1,
      description:
        'goes with status `cancelled`; without it the job is cancelled with the reason `No reason given`',
    }),
  ),
}

export const UpdateCollectionBody = Type.Object(
  {
    ...updateFields,
    paymentWebHook: Type.Optional(
      Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
        description: `${PAYMENT_WEB_HOOK}. \`null\` or \`""\` removes it. Changes even after the escrow is paid.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'Landing page v2' }],
  },
)
export type UpdateCollectionBodyT = Static<typeof UpdateCollectionBody>
/** The details of #29 (what the creator edits), without the work fields and the webhook. */
export type UpdateCollectionInput = Omit<
  UpdateCollectionBodyT,
  'status' | 'progress' | 'cancellationReason' | 'paymentWebHook'
>

const ManyItem = Type.Object(
  { id: Id('the collection to update'), ...updateFields },
  { additionalProperties: false, minProperties: 2 },
)
const ManyItems = Type.Array(ManyItem, { minItems: 1, maxItems: 50, description: 'at most 50 collections' })

/**
 * The bulk update: `{ collections: [...] }`, or `{ collections: { collections: [...] } }` as the
 * client SDK's updateManyCollections wraps its argument.
 */
export const UpdateManyCollectionsBody = Type.Object(
  {
    collections: Type.Union([
      ManyItems,
      Type.Object({ collections: ManyItems }, { additionalProperties: false }),
    ]),
  },
  {
    additionalProperties: false,
    examples: [{ collections: [{ id: EX.childCollectionId, status: 'ongoing', progress: 40 }] }],
  },
)
export type UpdateManyItem = Static<typeof ManyItem>

const Bool = (description: string) => Type.Optional(Type.Boolean({ description }))

export const ListCollectionsQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Text(40)),
    status: Type.Optional(Text(40)),
    creator: Bool('include the creator summary (default true); false gives the creator id instead'),
    receiver: Bool('include `receiver` (the escrow receiver summary, or null)'),
    creatorId: Type.Optional(Id('only collections created by this user')),
    isPrivate: Bool('private or public collections only'),
    price: Type.Optional(
      Type.String({
        maxLength: 40,
        description: '`min-max` over paymentFee in USD; either side may be empty: `100-`, `-500`, `100-500`',
      }),
    ),
    search: Type.Optional(
      Text(200, { description: 'words matched case-insensitively by prefix in name, description and tags' }),
    ),
    tags: Type.Optional(
      Text(1000, {
        description: 'comma-separated tag keys (or names); a collection with any of them matches',
      }),
    ),
    'meta.name': Type.Optional(Text(200)),
    escrowPaid: Bool('collections whose escrow is (or is not) paid'),
    parent: Type.Optional(Id('children of this collection')),
  },
  { additionalProperties: false },
)
export type ListCollectionsQueryT = Static<typeof ListCollectionsQuery>
