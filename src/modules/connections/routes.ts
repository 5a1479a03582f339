// HTTP for connection filters (/v1/conn-filter, as the public SDK calls them).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, EmptyObject, envelope, guardedErrors, ok } from '../../http/schemas.ts'
import { ConnectionFilter, ConnectionFilterList, FilterBody, FilterIdParams, OneQuery } from './schemas.ts'
import type { ConnectionFilterService } from './service.ts'

export const connectionFilterRoutes: FastifyPluginAsyncTypebox<{ filters: ConnectionFilterService }> = async (
  app,
  { filters },
) => {
  const tags = ['connection filters']
  const BAD_RULE =
    'a field fails its schema, or a decider the key does not take, or a value the decider does not take (`data.errors` names it)'
  const NONE = { when: 'the caller has no such rule', message: 'connection filter not found' }

  app.post(
    '/v1/conn-filter/',
    {
      schema: {
        operationId: 'createConnectionFilter',
        summary: 'Adds a rule on who may reach the caller (the SDK’s connectionFilter.create)',
        description:
          'One rule per event and key. Checked when someone opens a conversation with the caller (`CREATE_CONVERSATION`), invites them (`SEND_INVITE`) or applies to their job (`SEND_APPLICATION`); a person who fails it is refused with 403 `CONNECTION_FILTERED` naming the rule.',
        tags,
        security: bearer,
        body: FilterBody,
        response: {
          200: envelope(ConnectionFilter, 'Connection filter created'),
          ...guardedErrors({
            VALIDATION_ERROR: BAD_RULE,
            CONNECTION_RULE_EXISTS: {
              when: 'the caller already has a rule for this event and key (change it with PATCH)',
              message:
                'You already have a afroScore rule for SEND_INVITE; change it with PATCH /v1/conn-filter/',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await filters.create(caller(req).userId, req.body), 'Connection filter created'),
  )

  app.patch(
    '/v1/conn-filter/',
    {
      schema: {
        operationId: 'updateConnectionFilter',
        summary: 'Changes the caller’s rule of this event and key (the SDK’s connectionFilter.update)',
        tags,
        security: bearer,
        body: FilterBody,
        response: {
          200: envelope(ConnectionFilter, 'Connection filter updated'),
          ...guardedErrors({ VALIDATION_ERROR: BAD_RULE, NOT_FOUND: NONE }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await filters.update(caller(req).userId, req.body), 'Connection filter updated'),
  )

  app.get(
    '/v1/conn-filter/user',
    {
      schema: {
        operationId: 'getConnectionFilter',
        summary: 'One of the caller’s rules (the SDK’s connectionFilter.getForAUser)',
        description:
          'The rule of `event` and `key` when given, otherwise the most recently changed one (the SDK declares one rule); every rule is listed by GET /v1/conn-filter.',
        tags,
        security: bearer,
        querystring: OneQuery,
        response: {
          200: envelope(ConnectionFilter, 'Connection filter'),
          ...guardedErrors({ NOT_FOUND: NONE }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await filters.one(caller(req).userId, req.query), 'Connection filter'),
  )

  app.get(
    '/v1/conn-filter',
    {
      schema: {
        operationId: 'listConnectionFilters',
        summary: 'Every rule of the caller, most recently changed first',
        tags,
        security: bearer,
        response: { 200: envelope(ConnectionFilterList, 'Connection filters'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await filters.list(caller(req).userId), 'Connection filters'),
  )

  app.delete(
    '/v1/conn-filter/:id',
    {
      schema: {
        operationId: 'deleteConnectionFilter',
        summary: 'Removes one of the caller’s rules',
        tags,
        security: bearer,
        params: FilterIdParams,
        response: {
          200: envelope(EmptyObject, 'Connection filter removed'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no rule of the caller has this id', message: NONE.message },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await filters.remove(caller(req).userId, req.params.id), 'Connection filter removed'),
  )
}
