// Turns whatever a node or viem throws into a ChainError with a stable code, and keeps the
// message free of request bodies (a raw transaction or key must never reach a log).
import { ChainError } from './types.ts'

/** thrown by the devnet while it is marked down, and recognised as UNAVAILABLE */
export class DevnetDownError extends Error {
  readonly code = -32603
  constructor() {
    super('devnet is down (simulated outage)')
    this.name = 'DevnetDownError'
  }
}

interface ErrorLike {
  name?: unknown
  message?: unknown
  shortMessage?: unknown
  details?: unknown
  code?: unknown
  status?: unknown
  cause?: unknown
}

/** the error and its causes, outermost first */
function chainOf(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = []
  let e: unknown = err
  while (e && typeof e === 'object' && out.length < 10) {
    out.push(e as ErrorLike)
    e = (e as ErrorLike).cause
  }
  return out
}

/**
 * The human texts of an error chain. viem's full `message` quotes the request (URL with a
 * possible API key, the raw transaction), so only its `shortMessage` and `details` are used.
 */
function messagesOf(err: unknown): string {
  const parts: string[] = []
  for (const e of chainOf(err)) {
    if (typeof e.shortMessage === 'string') {
      parts.push(e.shortMessage)
      if (typeof e.details === 'string') parts.push(e.details)
    } else if (typeof e.message === 'string') parts.push(e.message)
  }
  if (parts.length === 0) parts.push(String(err))
  return parts.join(' | ')
}

const UNAVAILABLE_NAMES = new Set([
  'DevnetDownError',
  'TimeoutError',
  'SocketClosedError',
  'WebSocketRequestError',
  'LimitExceededRpcError',
  'ResourceUnavailableRpcError',
])
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])

function isUnavailable(err: unknown): boolean {
  return chainOf(err).some(
    (e) =>
      (typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name)) ||
      // no status: the request never got an HTTP answer
      (e.name === 'HttpRequestError' && e.status === undefined) ||
      (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) ||
      (typeof e.status === 'number' && (e.status >= 500 || e.status === 429)) ||
      (typeof e.message === 'string' && /^(fetch failed|socket hang up)$/.test(e.message)),
  )
}

/**
 * A node's answer that says it cannot serve the request right now, not that the request is wrong:
 * a lagging node behind a load balancer has not got the block yet ("header not found", "unknown
 * block"), or pruned its state, or failed inside without a reason. Another try (or provider) may
 * answer.
 */
const LAGGING =
  /header not found|missing trie node|block not found|unknown block|block .*not (found|available)|^internal (json-rpc )?error\.?$/i

function isLagging(text: string): boolean {
  return text.split(' | ').some((part) => LAGGING.test(part.trim()))
}

/** The node says the call reverted (its words, or revert data with the answer). */
export function isRevert(err: unknown): boolean {
  if (/revert|gas required exceeds allowance/i.test(messagesOf(err))) return true
  return chainOf(err).some(
    (e) =>
      e.name === 'ExecutionRevertedError' ||
      e.name === 'ContractFunctionRevertedError' ||
      e.code === 3 ||
      (typeof (e as { data?: unknown }).data === 'string' &&
        /^0x[0-9a-f]{8,}$/i.test((e as { data: string }).data)),
  )
}

/**
 * An eth_getLogs answer that refuses the size of the range (too many blocks or results), as
 * providers cap them: the same query over a smaller range is answered.
 */
export function isRangeLimit(err: unknown): boolean {
  return /more than \d+ results|block range|range (is )?too (wide|large|big)|exceeds? (the )?max(imum)? (block )?range|max(imum)? block range|too many (blocks|results|logs)|limit(ed)? to (a )?[\d,.]+k? (blocks? )?range|response size exceeded|query timeout exceeded/i.test(
    messagesOf(err),
  )
}

export function isAlreadyKnown(err: unknown): boolean {
  return /already known|known transaction|already imported|already exists|AlreadyKnown/i.test(messagesOf(err))
}

export function toChainError(err: unknown, what: string): ChainError {
  if (err instanceof ChainError) return err
  const text = messagesOf(err)
  // The original error is not kept as the cause: viem's messages and stacks quote the request
  // URL (which may hold an API key); the node's own words are enough to debug.
  const cause = { cause: new Error(text.slice(0, 1000)) }
  if (isUnavailable(err)) return new ChainError('UNAVAILABLE', `${what}: chain node unavailable`, true, cause)
  if (/nonce too low|nonce has already been used|NonceTooLow|OldNonce/i.test(text))
    return new ChainError('NONCE_TOO_LOW', `${what}: nonce already used`, false, cause)
  if (
    /insufficient funds|InsufficientFunds|exceeds the balance|doesn't have enough funds|not enough funds/i.test(
      text,
    )
  )
    return new ChainError(
      'INSUFFICIENT_FUNDS',
      `${what}: insufficient funds for amount and gas`,
      false,
      cause,
    )
  if (/underpriced|replacement transaction|fee too low|max fee per gas less than block base fee/i.test(text))
    return new ChainError('UNDERPRICED', `${what}: fee too low`, false, cause)
  if (isLagging(text)) return new ChainError('UNAVAILABLE', `${what}: chain node not in sync`, true, cause)
  const parts = text.split(' | ').filter((s) => s.trim() !== '')
  // prefer the node's own words (viem's details) over viem's generic headline
  const anyErr = err as { details?: unknown; shortMessage?: unknown }
  const first =
    (typeof anyErr?.details === 'string' && anyErr.details) ||
    parts.find((s) => !/^(Missing or invalid parameters|An unknown RPC error)/.test(s)) ||
    parts[0] ||
    'unknown error'
  // The first line of a node's answer names the reason; longer texts may quote the request.
  const reason = first.split('\n')[0]!.slice(0, 200)
  return new ChainError('REJECTED', `${what}: ${reason}`, false, cause)
}
