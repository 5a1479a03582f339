// Mapping node and transport failures to ChainError codes, from the error shapes viem produces.
import { HttpRequestError, InvalidInputRpcError, RpcRequestError, TimeoutError } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  DevnetDownError,
  isAlreadyKnown,
  isRangeLimit,
  isRevert,
  toChainError,
} from '../../src/platform/chain/errors.ts'

const url = 'https://rpc.example.org/v3/SECRET-API-KEY'
const rpcError = (message: string, code = -32000) =>
  new RpcRequestError({
    body: { method: 'eth_sendRawTransaction', params: ['0x5030abc503'] },
    error: { code, message },
    url,
  })

describe('toChainError', () => {
  it('network failures are UNAVAILABLE and retryable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    const cases = [
      new HttpRequestError({
        url,
        details: 'fetch failed',
        cause: new TypeError('fetch failed', { cause: refused }),
      }),
      new HttpRequestError({ url, status: 503, details: 'Service Unavailable' }),
      new TimeoutError({ body: {}, url }),
      new DevnetDownError(),
    ]
    for (const err of cases)
      expect(toChainError(err, 'x')).toMatchObject({ code: 'UNAVAILABLE', retryable: true })
  })

  it('node answers map by meaning, and digits in the request never look like an HTTP status', () => {
    expect(toChainError(rpcError('nonce too low'), 'b').code).toBe('NONCE_TOO_LOW')
    expect(toChainError(rpcError('insufficient funds for gas * price + value'), 'b').code).toBe(
      'INSUFFICIENT_FUNDS',
    )
    expect(toChainError(rpcError('replacement transaction underpriced'), 'b').code).toBe('UNDERPRICED')
    const other = toChainError(rpcError('intrinsic gas too low'), 'broadcast')
    expect(other).toMatchObject({ code: 'REJECTED', retryable: false })
    expect(other.message).toBe('broadcast: intrinsic gas too low')
    const input = new InvalidInputRpcError(
      new RpcRequestError({
        body: {},
        error: { code: -32602, message: "Sender doesn't have enough funds" },
        url,
      }),
    )
    expect(toChainError(input, 'b').code).toBe('INSUFFICIENT_FUNDS')
  })

  it('keeps the URL (and any API key in it) out of the message and the cause', () => {
    for (const err of [rpcError('nonce too low'), new HttpRequestError({ url, details: 'fetch failed' })]) {
      const mapped = toChainError(err, 'x')
      expect(mapped.message).not.toContain('SECRET')
      expect(String((mapped.cause as Error).message)).not.toContain('SECRET')
    }
  })

  it('recognises "already known" answers', () => {
    expect(isAlreadyKnown(rpcError('already known'))).toBe(true)
    expect(isAlreadyKnown(rpcError('Known transaction: 0xabc'))).toBe(true)
    expect(isAlreadyKnown(rpcError('nonce too low'))).toBe(false)
  })
})

describe('transient node answers, reverts and range limits', () => {
  it('a lagging node and a reasonless internal error are UNAVAILABLE, not refusals', () => {
    for (const message of [
      'header not found',
      'missing trie node 0xabc (path )',
      'unknown block',
      'block not found',
    ])
      expect(toChainError(rpcError(message), 'estimate gas')).toMatchObject({
        code: 'UNAVAILABLE',
        retryable: true,
      })
    expect(toChainError(rpcError('internal error', -32603), 'x').code).toBe('UNAVAILABLE')
    // a refusal keeps its meaning whatever the code
    expect(toChainError(rpcError('nonce too low', -32603), 'x').code).toBe('NONCE_TOO_LOW')
  })

  it('a revert is what the node says reverted, nothing else', () => {
    expect(isRevert(rpcError('execution reverted: ERC20: transfer amount exceeds balance', 3))).toBe(true)
    expect(
      isRevert(
        rpcError(
          "Error: VM Exception while processing transaction: reverted with custom error 'ERC20InsufficientBalance()'",
          -32603,
        ),
      ),
    ).toBe(true)
    expect(isRevert(rpcError('header not found'))).toBe(false)
    expect(isRevert(rpcError('internal error', -32603))).toBe(false)
    expect(isRevert(new HttpRequestError({ url, status: 503, details: 'Service Unavailable' }))).toBe(false)
  })

  it("recognises the providers' range-limit answers to eth_getLogs", () => {
    for (const message of [
      'query returned more than 10000 results',
      'block range is too wide',
      'exceed maximum block range: 5000',
      'query exceeds max block range 50',
      'eth_getLogs is limited to a 10,000 range',
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    ])
      expect(isRangeLimit(rpcError(message, -32005)), message).toBe(true)
    expect(isRangeLimit(rpcError('header not found'))).toBe(false)
    expect(isRangeLimit(rpcError('request limit exceeded', -32005))).toBe(false)
  })
})
