// What a dishonest platform could publish: the real snapshots fetched from the app, changed, and
// (where the change must look consistent) rebuilt and signed again with the platform's own keys.
// A tiny HTTP server serves the result to the verifier, passing /v1/account through to the app.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { privateKeyToAccount } from 'viem/accounts'
import { attestationMessage, reservesDigest } from '../../src/modules/reserves/format.ts'
import { buildTree, leafHash, pathOf } from '../../src/modules/reserves/merkle.ts'
import type { TestApp } from '../helpers/app.ts'

export interface World {
  list: any[]
  details: Map<string, any>
  proofs: Map<string, any>
}

const hex = (b: Buffer) => `0x${b.toString('hex')}`

/** The published snapshots (latest per coin), their details and the user's proofs, as the app serves them. */
export async function fetchWorld(t: TestApp, token: string): Promise<World> {
  const get = async (url: string, auth?: string) => {
    const res = await t.req({ method: 'GET', url, ...(auth ? { token: auth } : {}) })
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.body}`)
    return res.json().data
  }
  const { snapshots } = await get('/v1/reserves')
  const world: World = { list: snapshots, details: new Map(), proofs: new Map() }
  for (const s of snapshots) {
    world.details.set(s.id, await get(`/v1/reserves/${s.id}`))
    world.proofs.set(s.id, await get(`/v1/reserves/${s.id}/proof`, token))
  }
  return structuredClone(world)
}

/**
 * Rebuilds one snapshot of `world` from `leaves` (the user's, as the platform wants them seen) plus
 * one filler leaf of everyone else's total, with `changes` to its published fields and reserves; the
 * root is signed again by the attestation key and every reserve address signs the new message.
 */
export async function reforge(
  t: TestApp,
  world: World,
  coin: string,
  opts: {
    leaves?: (mine: any[]) => { kind: string; id: string; balance: bigint; salt: Buffer }[]
    fields?: Record<string, unknown>
    reserves?: (reserves: any[]) => any[]
  } = {},
) {
  const listed = world.list.find((s) => s.coin === coin)
  const detail = world.details.get(listed.id)
  const proof = world.proofs.get(listed.id)
  const mine = proof.leaves.map((l: any) => ({
    kind: l.kind,
    id: l.id,
    balance: BigInt(l.balance),
    salt: Buffer.from(l.salt.slice(2), 'hex'),
  }))
  const leaves = opts.leaves ? opts.leaves(mine) : mine
  const ownTotal = mine.reduce((s: bigint, l: any) => s + l.balance, 0n)
  const others = BigInt(listed.liabilitiesTotal) - ownTotal
  const all = [...leaves, { kind: 'platform', id: 'platform:others', balance: others, salt: randomBytes(32) }]
  const hashed = all.map((l) => ({ ...l, hash: leafHash(l) }))
  const tree = buildTree(hashed.map((l) => ({ hash: l.hash, sum: l.balance })))
  const index = (h: Buffer) => tree.levels[0]!.findIndex((n) => n.hash.equals(h))
  const reserves = (opts.reserves ? opts.reserves(detail.reserves) : detail.reserves).map((r: any) => ({
    ...r,
  }))
  const fields = {
    ...listed,
    root: hex(tree.root.hash),
    liabilitiesTotal: tree.root.sum.toString(),
    leafCount: all.length,
    reservesTotal: reserves.reduce((s: bigint, r: any) => s + BigInt(r.balance), 0n).toString(),
    ...opts.fields,
  }
  const message = attestationMessage({
    id: fields.id,
    chainId: fields.chainId,
    coin: fields.coin,
    asset: fields.asset,
    block: fields.block,
    blockHash: fields.blockHash,
    takenAt: new Date(fields.takenAt),
    root: fields.root,
    liabilitiesTotal: BigInt(fields.liabilitiesTotal),
    leafCount: fields.leafCount,
    reservesTotal: BigInt(fields.reservesTotal),
    reservesDigest: reservesDigest(
      reserves.map((r: any) => ({ address: r.address, balance: BigInt(r.balance) })),
    ),
  })
  const signature = await privateKeyToAccount(t.config.reservesAttestationKey).signMessage({ message })
  for (const r of reserves)
    r.signature = await t.app.services.keys.signMessage(t.database.db, r.address, message)
  const snapshot = { ...fields, message, signature }
  const forgedLeaves = hashed
    .filter((l) => l.kind !== 'platform')
    .map((l) => ({
      kind: l.kind,
      id: l.id,
      balance: l.balance.toString(),
      salt: hex(l.salt),
      hash: hex(l.hash),
      index: index(l.hash),
      path: pathOf(tree.levels, index(l.hash)).map((p) => ({
        side: p.side,
        hash: hex(p.hash),
        sum: p.sum.toString(),
      })),
    }))
  world.list = world.list.map((s) => (s.id === listed.id ? snapshot : s))
  world.details.set(listed.id, { ...snapshot, reserves })
  world.proofs.set(listed.id, { snapshot, leaves: forgedLeaves })
  return world
}

/** Serves `world` over HTTP; `/v1/account` is answered by the app. */
export async function serve(t: TestApp, world: World): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    const send = (data: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(status === 200 ? { status: 'success', message: 'ok', data } : data))
    }
    if (path === '/v1/account') {
      const real = await t.req({
        method: 'GET',
        url: path,
        headers: { authorization: req.headers.authorization ?? '' },
      })
      res.writeHead(real.statusCode, { 'content-type': 'application/json' })
      return res.end(real.body)
    }
    if (path === '/v1/reserves') return send({ snapshots: world.list })
    const m = /^\/v1\/reserves\/([0-9a-f]+)(\/proof)?$/.exec(path)
    const found = m && (m[2] ? world.proofs.get(m[1]!) : world.details.get(m[1]!))
    if (found) return send(found)
    send({ status: 'error', message: 'not found', data: { code: 'NOT_FOUND' } }, 404)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}
