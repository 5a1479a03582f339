// The fault-injecting JSON-RPC proxy of the test helpers, in front of a real devnet: each fault
// does what it says, batches are faulted call by call (an HTTP fault answers the whole request),
// the seeded rate repeats itself, and calls are counted per method.
import { keccak256 } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { faults, type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts'

let node: ChainAdapter
let upstream: string
let proxy: RpcProxy
beforeAll(async () => {
  node = await openDevnet(builtinCoinsConfig())
  upstream = await node.devnet!.listen(0)
})
afterAll(async () => {
  await proxy?.close()
  await node?.close()
})

async function post(body: unknown) {
  const res = await fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as any) : await res.text() }
}
const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params })

describe('rpc proxy', () => {
  it('forwards untouched without rules, and counts calls per method (batch members one by one)', async () => {
    proxy = await startRpcProxy(upstream)
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await post(call('eth_chainId'))).body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    const batch = await post([call('eth_chainId', [], 1), call('eth_blockNumber', [], 2)])
    expect(batch.body.map((a: { id: number }) => a.id)).toEqual([1, 2])
    expect(proxy.calls('eth_chainId')).toBe(2)
    expect(proxy.calls('eth_blockNumber')).toBe(1)
    expect(proxy.calls()).toBe(3)
    expect(proxy.faulted()).toBe(0)
  })

  it('HTTP 500 and 429 answer the whole request; a JSON-RPC error only its call; `times` runs out', async () => {
    const drop = proxy.add({ method: 'eth_blockNumber', fault: faults.http500, times: 1 })
    expect((await post([call('eth_chainId'), call('eth_blockNumber', [], 2)])).status).toBe(500)
    expect((await post(call('eth_blockNumber'))).status).toBe(200)
    drop()
    proxy.add({ method: 'eth_gasPrice', fault: faults.http429, times: 1 })
    expect((await post(call('eth_gasPrice'))).status).toBe(429)
    proxy.add({ method: 'eth_chainId', fault: faults.rpcError(-32005, 'limit exceeded'), times: 1 })
    const mixed = await post([call('eth_chainId', [], 1), call('eth_blockNumber', [], 2)])
    expect(mixed.body[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32005, message: 'limit exceeded' },
    })
    expect(mixed.body[1].result).toMatch(/^0x/)
    expect(proxy.faulted('eth_chainId')).toBe(1)
  })

  it('lies: the answer transformed per method, only for calls whose params match', async () => {
    const head = BigInt((await post(call('eth_blockNumber'))).body.result)
    const drop = proxy.add({
      method: 'eth_blockNumber',
      fault: faults.lie((r) => `0x${(BigInt(r as string) - 1n).toString(16)}`),
    })
    expect(BigInt((await post(call('eth_blockNumber'))).body.result)).toBe(head - 1n)
    drop()
    proxy.add({
      method: 'eth_getBalance',
      when: (params) => params[0] === node.treasury.address,
      fault: faults.lie(() => '0x0'),
    })
    expect((await post(call('eth_getBalance', [node.treasury.address, 'latest']))).body.result).toBe('0x0')
    expect((await post(call('eth_getBalance', [node.gasWallet.address, 'latest']))).body.result).not.toBe(
      '0x0',
    )
    proxy.clear()
  })

  it('hangs for a time, or until released', async () => {
    proxy.add({ method: 'eth_chainId', fault: faults.hang(), times: 1 })
    const before = proxy.calls('eth_chainId')
    let answered = false
    const pending = post(call('eth_chainId')).then((r) => {
      answered = true
      return r
    })
    // the call is counted before it hangs
    while (proxy.calls('eth_chainId') === before) await new Promise((r) => setTimeout(r, 5))
    expect(answered).toBe(false)
    proxy.release()
    expect((await pending).body.result).toBe('0x7a69')
    proxy.add({ method: 'eth_chainId', fault: faults.hang(20), times: 1 })
    expect((await post(call('eth_chainId'))).body.result).toBe('0x7a69')
  })

  it('swallows a broadcast: answers its hash and never forwards it', async () => {
    const payer = node.devnet!.accounts[3]!
    const signed = await node.signTransfer(payer.privateKey, {
      coin: 'avax',
      to: node.treasury.address,
      amount: 1n,
      nonce: await node.getNonce(payer.address),
    })
    proxy.add({ method: 'eth_sendRawTransaction', fault: faults.swallow, times: 1 })
    const res = await post(call('eth_sendRawTransaction', [signed.raw]))
    expect(res.body.result).toBe(keccak256(signed.raw))
    expect(proxy.swallowed).toEqual([signed.hash])
    expect(await node.getReceipt(signed.hash)).toBeNull()
    expect(await node.getNonce(payer.address, 'pending')).toBe(signed.nonce)
    // the next broadcast of the same transaction goes through
    expect((await post(call('eth_sendRawTransaction', [signed.raw]))).body.result).toBe(signed.hash)
    expect((await node.getReceipt(signed.hash))?.status).toBe('success')
  })

  it('fails a seeded share of calls, the same ones for the same seed, picking among several faults', async () => {
    const outcomes = async (seed: number) => {
      const p = await startRpcProxy(upstream, { seed })
      p.add({ method: '*', rate: 0.2, fault: [faults.http500, faults.http429, faults.rpcError()] })
      const out: number[] = []
      for (let i = 0; i < 100; i++) {
        const res = await fetch(p.url, { method: 'POST', body: JSON.stringify(call('eth_chainId')) })
        const body = res.status === 200 ? ((await res.json()) as { error?: { code: number } }) : {}
        out.push(body.error ? body.error.code : res.status)
      }
      expect(p.faulted()).toBe(out.filter((s) => s !== 200).length)
      await p.close()
      return out
    }
    const a = await outcomes(7)
    expect(await outcomes(7)).toEqual(a)
    const failed = a.filter((s) => s !== 200)
    expect(failed.length).toBeGreaterThan(5)
    expect(failed.length).toBeLessThan(40)
    expect(new Set(failed)).toEqual(new Set([500, 429, -32603]))
  })
})
