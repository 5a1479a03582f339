// What other modules may name of chat: the service's type and the message schema an operator's
// view of a disputed job embeds.
export { ChatMessage } from './schemas.ts'
export type { ChatService } from './service.ts'
