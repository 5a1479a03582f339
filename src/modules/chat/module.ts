// Chat: its service over collections and files, its requests on the live socket, its routes.
import type { FastifyInstance } from 'fastify'
import { Value } from 'typebox/value'
import { errors } from '../../http/errors.ts'
import type { LiveHub } from '../live/types.ts'
import { chatRoutes } from './routes.ts'
import { SendBody } from './schemas.ts'
import { type ChatDeps, ChatService } from './service.ts'

function conversationOf(data: unknown): string {
  const id = (data as { conversationId?: unknown } | null)?.conversationId
  if (typeof id !== 'string') throw errors.field('/conversationId', 'required')
  return id
}

export function buildChat(d: ChatDeps & { live: Pick<LiveHub, 'handle'> }) {
  const { live, ...deps } = d
  const chat = new ChatService(deps)
  live.handle('chat.send', async (ctx, data) => {
    const { conversationId: _, ...body } = (data ?? {}) as Record<string, unknown>
    if (!Value.Check(SendBody, body)) {
      throw errors.validation('Invalid message', [
        { path: '/data', message: 'content, mediaId or quotedContentId' },
      ])
    }
    return chat.send(ctx.userId, conversationOf(data), body)
  })
  live.handle('chat.read', async (ctx, data) => chat.read(ctx.userId, conversationOf(data)))
  return { chat }
}

export async function chatHttp(app: FastifyInstance, s: { chat: ChatService }) {
  await app.register(chatRoutes, { chat: s.chat })
}
