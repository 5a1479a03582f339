// The notifications contract: INotificationDto of the public SDK, its list, and the e-mail
// preferences of the account.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { NOTIFICATION_TYPES } from './catalog.ts'

const NotificationType = Type.Union(
  NOTIFICATION_TYPES.map((t) => Type.Literal(t)),
  { description: 'what happened (the SDK’s INotificationType names, and the platform’s own)' },
)

const NotificationUser = Type.Object({
  _id: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  type: Type.String({ description: 'account type (talent, recruiter...)' }),
  score: Type.Number(),
  profile: Type.Object({
    talent: Type.Object({
      tags: Type.Array(Type.String()),
      availability: Type.String({ description: 'busy, available or working' }),
      skillIds: Type.Array(Type.Object({})),
    }),
  }),
})

const userExample = (id: string, firstName: string) => ({
  _id: id,
  firstName,
  lastName: 'Lovelace',
  type: 'talent',
  score: 0,
  profile: { talent: { tags: [], availability: 'available', skillIds: [] } },
})

const notificationExample = {
  _id: '6b048390bce238a5cbe00a80',
  owner: userExample(EX.userId, 'Ada'),
  notifyUser: userExample(EX.otherUserId, 'Grace'),
  title: 'New invite',
  description: 'You were invited to a job.',
  read: false,
  data: '6b04838fbce238a5cbe00a7f',
  isAdmin: false,
  type: 'invite_received',
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const Notification = Type.Object(
  {
    _id: Type.String(),
    owner: NotificationUser,
    notifyUser: Type.Union([NotificationUser, Type.Null()], {
      description: 'who caused it; null when the platform did (e.g. a confirmed deposit)',
    }),
    title: Type.String(),
    description: Type.String(),
    read: Type.Boolean(),
    data: Type.String({
      description:
        'id of the record it is about: the invite, application, collection, review, transaction, withdrawal or user',
    }),
    isAdmin: Type.Boolean(),
    type: NotificationType,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'Notification',
    description: 'Something that happened to the caller.',
    examples: [notificationExample],
  },
)

export const NotificationList = Type.Object(
  {
    page: Type.Number(),
    pages: Type.Number(),
    limit: Type.Number(),
    total: Type.Number({ description: 'notifications matching the filters' }),
    unread: Type.Number({ description: 'all unread notifications of the caller, whatever the filters' }),
    notification: Type.Array(Notification),
  },
  {
    $id: 'NotificationPage',
    examples: [{ page: 1, pages: 1, limit: 12, total: 1, unread: 1, notification: [notificationExample] }],
  },
)

export const NotificationListQuery = Type.Object(
  {
    ...PaginationQuery,
    read: Type.Optional(Type.Boolean({ description: 'true: read ones only; false: unread ones only' })),
    type: Type.Optional(NotificationType),
  },
  { additionalProperties: false },
)

export const MarkAllData = Type.Object(
  {
    updated: Type.Number({ description: 'notifications that were unread' }),
    unread: Type.Number({ description: 'unread notifications left (0)' }),
  },
  { examples: [{ updated: 3, unread: 0 }] },
)

export const EmailSettings = Type.Object(
  {
    email: Type.Array(NotificationType, { description: 'the types mailed to the caller (in a digest)' }),
    available: Type.Array(NotificationType, { description: 'every notification type' }),
    defaults: Type.Array(NotificationType, { description: 'the types mailed to an account that chose none' }),
  },
  {
    $id: 'NotificationEmailSettings',
    examples: [
      {
        email: ['invite_received', 'new_deposit'],
        available: [...NOTIFICATION_TYPES],
        defaults: [
          'invite_received',
          'assigned_job',
          'job_delivered',
          'job_completed',
          'JOB_CANCEL',
          'escrow_funded',
          'dispute_opened',
          'dispute_decided',
          'new_deposit',
        ],
      },
    ],
  },
)

export const EmailSettingsBody = Type.Object(
  {
    email: Type.Array(NotificationType, {
      maxItems: 50,
      description: 'the types to mail; an empty list turns notification mail off',
    }),
  },
  { additionalProperties: false, examples: [{ email: ['invite_received', 'new_deposit'] }] },
)
