// The connection filters contract: the SDK's IConnectionFilter (events, keys and deciders as it
// names them, plus SEND_INVITE, SEND_APPLICATION and `verified`).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, Timestamp } from '../../http/schemas.ts'
import { DECIDERS, EVENTS, KEYS } from './rules.ts'

const lit = <T extends string>(list: readonly T[], description: string) =>
  Type.Union(
    list.map((v) => Type.Literal(v)),
    { description },
  )

const Event = lit(
  EVENTS,
  '`CREATE_CONVERSATION`: someone opens a conversation with you; `SEND_INVITE`: someone invites you to a job; `SEND_APPLICATION`: someone applies to your job',
)
const Key = lit(
  KEYS,
  '`tags` (the other person’s profile tags), `tagCount` (how many), `afroScore` (their score), `verified` (their identity is verified)',
)
const Decider = lit(
  DECIDERS,
  '`contains` for tags (every listed tag required); `greater_than`, `less_than`, `equal_to`, `between` for tagCount and afroScore; `equal_to` for verified',
)
const Value = Type.Union(
  [
    Type.Number(),
    Type.String({ maxLength: 50 }),
    Type.Boolean(),
    Type.Array(Type.Union([Type.String({ maxLength: 50 }), Type.Number()]), { maxItems: 20 }),
  ],
  {
    description:
      'a number (greater_than, less_than, equal_to), `[min, max]` (between), a tag or a list of tags (contains), `true` (verified)',
  },
)

const example = {
  _id: EX.collectionId,
  event: 'SEND_INVITE',
  key: 'afroScore',
  decider: 'greater_than',
  value: 50,
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const FilterBody = Type.Object(
  { event: Event, key: Key, decider: Decider, value: Value },
  {
    additionalProperties: false,
    examples: [{ event: 'SEND_INVITE', key: 'afroScore', decider: 'greater_than', value: 50 }],
  },
)

export const ConnectionFilter = Type.Object(
  {
    _id: Type.String(),
    event: Type.String(),
    key: Type.String(),
    decider: Type.String(),
    value: Value,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'ConnectionFilter',
    description: 'One of a user’s rules on who may reach them.',
    examples: [example],
  },
)

export const ConnectionFilterList = Type.Array(ConnectionFilter, { examples: [[example]] })

export const OneQuery = Type.Object(
  { event: Type.Optional(Event), key: Type.Optional(Key) },
  { additionalProperties: false },
)

export const FilterIdParams = Type.Object({ id: Id() }, { additionalProperties: false })
