// What the HTTP server does before a request reaches a route: limits on slow clients, and the error
// envelope (with an x-request-id) for requests Node's HTTP parser refuses.
import { randomUUID } from 'node:crypto'
import type { ServerOptions } from 'node:http'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyServerOptions } from 'fastify'
import { ERROR_STATUS, type ErrorCode } from './errors.ts'
import { API_CSP } from './security-headers.ts'

/** A request (headers and body) must arrive whole within this time, or the connection is closed. */
export const REQUEST_TIMEOUT_MS = 30_000
/** Headers must arrive within this time. */
export const HEADERS_TIMEOUT_MS = 15_000
/** A connection with no traffic at all is closed after this time. */
export const IDLE_TIMEOUT_MS = 60_000
/** How long a kept-alive connection waits for its next request. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000
/** How often Node checks open connections against the request and header timeouts. */
const CHECK_INTERVAL_MS = 1_000

function parserFailure(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time' }
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' }
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'VALIDATION_ERROR', message: 'The request body is malformed' }
    default:
      return { code: 'VALIDATION_ERROR', message: 'Malformed HTTP request' }
  }
}

function clientErrorHandler(
  this: { log: { debug(o: object, m: string): void } },
  err: Error & { code?: string },
  socket: Socket,
) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { code, message } = parserFailure(err.code)
  const status = ERROR_STATUS[code]
  const id = randomUUID()
  this.log.debug({ reqId: id, code: err.code }, 'client error')
  if (socket.writable) {
    const body = JSON.stringify({ status: 'error', message, data: { code } })
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: ${API_CSP}\r\nx-request-id: ${id}\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

export interface ConnectionLimits {
  /** the whole request (headers and body); default REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number
  /** the headers; default HEADERS_TIMEOUT_MS (never more than the request's) */
  headersTimeoutMs?: number
}

/**
 * The server's limits on slow clients. Node checks open connections against the request and
 * header timeouts every `connectionsCheckingInterval` (30 s by default, so a request could outlive
 * its limit by that much): here every second, or a quarter of a shorter limit, so a request that
 * has not arrived whole is answered 408 and closed within about a second of its limit.
 */
export function connectionOptionsFor(
  limits: ConnectionLimits = {},
): Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'clientErrorHandler'
> & { http: ServerOptions } {
  const requestTimeout = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
  const headersTimeout = Math.min(limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout)
  return {
    connectionTimeout: Math.max(IDLE_TIMEOUT_MS, requestTimeout),
    requestTimeout,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler,
    http: {
      headersTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(CHECK_INTERVAL_MS, Math.floor(headersTimeout / 4))),
    },
  }
}

export const connectionOptions = connectionOptionsFor()
