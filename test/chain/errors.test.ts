// Mapping node and transport failures to ChainError codes, from the error shapes viem produces.
import { HttpRequestError, InvalidInputRpcError, RpcRequestError, TimeoutError } from 'viem'
import { describe, expect, it } from 'vitest'
import { DevnetDownError, isAlreadyKnown, toChainError } from '../../src/platform/chain/errors.ts'

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
