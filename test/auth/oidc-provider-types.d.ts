// The part of oidc-provider (no types of its own) that the Google sign-in tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface KoaContext {
    path: string
    body: unknown
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
}
