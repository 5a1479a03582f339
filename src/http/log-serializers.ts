// How a request appears in the log: Fastify's usual fields, with the value of any query parameter
// that grants access (the signature of a pre-signed file URL) replaced, since a log is read by
// more people than the URL was given to.
import type { FastifyRequest } from 'fastify'

const SECRET_QUERY = /([?&](?:signature|token|code|password)=)[^&#]*/gi

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]')
}

export function requestLogView(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }
}
