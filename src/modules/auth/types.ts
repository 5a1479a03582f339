// What other modules may name of the auth module: its services' types and the temporary token's
// lifetime. Behaviour (checking a flow's code) is reached through module.ts.
export type { FlowRow, FlowService } from './flows.ts'
export type { AuthService, RequestMeta, TwoFaChallenge } from './service.ts'
export type { SessionIssuer } from './sessions.ts'
export { TEMP_TOKEN_TTL_MS, type TokenService } from './tokens.ts'
