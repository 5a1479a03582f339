// HTTP for proof of reserves: the published snapshots (public), a user's proof of inclusion
// (authenticated) and an operator's snapshot on request (admin, elevated session).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, errorResponses, guardedErrors, noAuth, ok } from '../../http/schemas.ts'
import { actorOf, adminErrors, guardElevated } from '../admin/module.ts'
import type { AdminAccess } from '../admin/types.ts'
import {
  HistoryQuery,
  ReserveProof,
  ReserveSnapshotDetail,
  ReserveSnapshotList,
  SnapshotParams,
  SnapshotRequest,
} from './schemas.ts'
import type { ReservesService } from './service.ts'

const tags = ['reserves']
const NOT_FOUND = { NOT_FOUND: 'no snapshot has this id' }

export const reservesRoutes: FastifyPluginAsyncTypebox<{ reserves: ReservesService }> = async (
  app,
  { reserves },
) => {
  app.get(
    '/v1/reserves',
    {
      schema: {
        operationId: 'getReserves',
        summary: 'The latest proof-of-reserves snapshot of each coin',
        description:
          'Per coin: the block, the Merkle-sum root of the liabilities, their total, the reserves held at that block, the ratio, and the attestation signature with its address. Check them with `clients/verify-reserves`.',
        tags,
        security: noAuth,
        response: { 200: envelope(ReserveSnapshotList, 'Reserves'), ...errorResponses({}) },
      },
    },
    async () => ok({ snapshots: await reserves.latest() }, 'Reserves'),
  )

  app.get(
    '/v1/reserves/history',
    {
      schema: {
        operationId: 'getReservesHistory',
        summary: 'Earlier proof-of-reserves snapshots, newest first',
        tags,
        security: noAuth,
        querystring: HistoryQuery,
        response: { 200: envelope(ReserveSnapshotList, 'Reserves history'), ...errorResponses({}) },
      },
    },
    async (req) =>
      ok({ snapshots: await reserves.history(req.query.limit ?? 60, req.query.coin) }, 'Reserves history'),
  )

  app.get(
    '/v1/reserves/:id',
    {
      schema: {
        operationId: 'getReserveSnapshot',
        summary: 'One snapshot with its reserve addresses, their balances and proof-of-control signatures',
        tags,
        security: noAuth,
        params: SnapshotParams,
        response: { 200: envelope(ReserveSnapshotDetail, 'Snapshot'), ...errorResponses(NOT_FOUND) },
      },
    },
    async (req) => ok(await reserves.get(req.params.id), 'Snapshot'),
  )

  app.get(
    '/v1/reserves/:id/proof',
    {
      schema: {
        operationId: 'getReserveProof',
        summary: "The caller's leaves in a snapshot, with the salts and sibling paths that lead to its root",
        description:
          'One leaf for the wallet (zero balances too) and one per escrow the caller funds or is paid from that held something at the snapshot.',
        tags,
        security: bearer,
        params: SnapshotParams,
        response: { 200: envelope(ReserveProof, 'Proof'), ...guardedErrors(NOT_FOUND) },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await reserves.proof(req.params.id, caller(req).userId), 'Proof'),
  )
}

export const reservesAdminRoutes: FastifyPluginAsyncTypebox<{
  reserves: ReservesService
  access: AdminAccess
}> = async (app, { reserves, access }) => {
  guardElevated(app, access)
  app.post(
    '/v1/admin/reserves/snapshot',
    {
      schema: {
        operationId: 'adminReservesSnapshot',
        summary: 'Take a proof-of-reserves snapshot of every coin now',
        tags: ['admin'],
        security: bearer,
        body: SnapshotRequest,
        response: {
          200: envelope(ReserveSnapshotList, 'Snapshot taken'),
          ...adminErrors({ UNAVAILABLE: 'the chain has not been read yet, or cannot be read now' }),
        },
      },
    },
    async (req) =>
      ok({ snapshots: await reserves.snapshotNow(actorOf(req), req.body.reason) }, 'Snapshot taken'),
  )
}
