// HTTP for notifications (/v1/notifications, as the public SDK calls them) and the account's
// notification e-mail preferences.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  EmailSettings,
  EmailSettingsBody,
  MarkAllData,
  Notification,
  NotificationList,
  NotificationListQuery,
} from './schemas.ts'
import type { NotificationService } from './service.ts'

export const notificationRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationService }> = async (
  app,
  { notifications },
) => {
  const tags = ['notifications']

  app.get(
    '/v1/notifications/',
    {
      schema: {
        operationId: 'listNotifications',
        summary: 'The caller’s notifications, newest first, with the unread count',
        description:
          'Query: page (from 1), limit (default 12, max 100), read (true: read only; false: unread only), type. `unread` counts every unread notification of the caller, whatever the filters. Only the caller’s own notifications are ever listed.',
        tags,
        security: bearer,
        querystring: NotificationListQuery,
        response: {
          200: envelope(NotificationList, 'Notifications'),
          ...guardedErrors({ VALIDATION_ERROR: 'a query value is out of range or an unknown type' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await notifications.list(caller(req).userId, req.query), 'Notifications'),
  )

  app.post(
    '/v1/notifications/mark/all',
    {
      schema: {
        operationId: 'markAllNotificationsRead',
        summary: 'Marks every notification of the caller read',
        tags,
        security: bearer,
        response: { 200: envelope(MarkAllData, 'Notifications marked read'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await notifications.markAll(caller(req).userId), 'Notifications marked read'),
  )

  app.post(
    '/v1/notifications/mark/:id',
    {
      schema: {
        operationId: 'markNotificationRead',
        summary: 'Marks one notification of the caller read',
        description: 'Marking a read notification again changes nothing. Someone else’s notification is 404.',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(Notification, 'Notification marked read'),
          ...guardedErrors({
            VALIDATION_ERROR: 'the id is not a record id',
            NOT_FOUND: {
              when: 'no notification of the caller has this id',
              message: 'notification not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await notifications.markOne(caller(req).userId, req.params.id), 'Notification marked read'),
  )

  app.get(
    '/v1/account/notifications',
    {
      schema: {
        operationId: 'getNotificationEmailSettings',
        summary: 'Which notification types are e-mailed to the caller',
        description:
          'Mail-worthy notifications are gathered for a minute and sent as one digest, so a burst is one mail. Until the caller chooses, `defaults` apply.',
        tags: ['account', ...tags],
        security: bearer,
        response: { 200: envelope(EmailSettings, 'Notification e-mail settings'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await notifications.emailSettings(caller(req).userId), 'Notification e-mail settings'),
  )

  app.put(
    '/v1/account/notifications',
    {
      schema: {
        operationId: 'setNotificationEmailSettings',
        summary: 'Chooses which notification types are e-mailed to the caller',
        tags: ['account', ...tags],
        security: bearer,
        body: EmailSettingsBody,
        response: {
          200: envelope(EmailSettings, 'Notification e-mail settings'),
          ...guardedErrors({ VALIDATION_ERROR: 'an unknown type, or more than 50' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(
        await notifications.setEmailSettings(caller(req).userId, req.body.email),
        'Notification e-mail settings',
      ),
  )
}
