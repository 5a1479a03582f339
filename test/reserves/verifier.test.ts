// The independent verifiers (the script clients/verify-reserves and `verifyReserves` of the client
// package clients/typescript) against the real app over a socket and the real dev chain's JSON-RPC:
// each passes on what the app publishes, and fails on every kind of tampering a dishonest platform
// could try, served by a tiny local HTTP server.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyReserves as verifyByPackage } from '../../clients/typescript/verify-reserves.ts'
// @ts-expect-error: a plain ESM script without types
import { verifyReserves as verifyByScript } from '../../clients/verify-reserves/verify.mjs'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
import { initiate, post } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, sendFrom, USDC, walletAddress } from '../helpers/money.ts'
import { fetchWorld, reforge, serve, type World } from './forge.ts'

let t: TestApp
let rpc: string
let url: string
let alice: TestUser
const run = runId()

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  const admin = await createAdmin(t, run)
  alice = await createUser(t)
  const bob = await createUser(t)
  const from = t.app.services.chain.devnet!.accounts[4]!
  await t.app.services.chain.devnet!.fund(from.address, 'usdc', 1000n * USDC)
  await sendFrom(t, from, await walletAddress(t, alice), 'usdc', 40n * USDC)
  await sendFrom(t, from, await walletAddress(t, alice), 'avax', 3n * AVAX)
  await sendFrom(t, from, await walletAddress(t, bob), 'usdc', 7n * USDC)
  const q = await initiate(t, alice, bob, { amount: 20 })
  await sendFrom(t, from, q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  expect((await post(t, alice, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
    'paid',
  )
  await t.app.services.settlement.watcher.scanNow()
  await t.drain()
  const res = await t.req({
    method: 'POST',
    url: '/v1/admin/reserves/snapshot',
    token: admin.token,
    payload: { reason: 'verifier test' },
  })
  expectOk(res)
  rpc = await t.app.services.chain.devnet!.listen(0)
  url = await t.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(() => t?.close())

const attestation = () => privateKeyToAccount(t.config.reservesAttestationKey).address

type Verify = (o: {
  url: string
  token: string
  rpc: string
  attestation?: string
}) => Promise<{ ok: boolean; problems: string[] }>
const verifiers: [string, Verify][] = [
  ['the script', verifyByScript],
  [
    'the client package',
    (o) =>
      verifyByPackage({
        baseUrl: o.url,
        token: o.token,
        rpcUrl: o.rpc,
        ...(o.attestation ? { attestationAddress: o.attestation } : {}),
      }),
  ],
]
let verifyReserves: Verify = verifyByScript

async function verifyWorld(world: World, opts: { attestation?: string } = {}) {
  const server = await serve(t, world)
  try {
    return await verifyReserves({ url: server.url, token: alice.token, rpc, ...opts })
  } finally {
    await server.close()
  }
}

function expectFailure(result: { ok: boolean; problems: string[] }, pattern: RegExp) {
  expect(result.ok, JSON.stringify(result.problems)).toBe(false)
  expect(result.problems.join('\n')).toMatch(pattern)
}

describe('the verifier on what the platform publishes', () => {
  it('passes against the app itself, as a script over real sockets', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        'clients/verify-reserves/verify.mjs',
        '--url',
        url,
        '--token',
        alice.token,
        '--rpc',
        rpc,
        '--attestation',
        attestation(),
      ],
      { cwd: process.cwd() },
    )
    expect(stdout).toContain('balance included, reserves ≥ liabilities')
    expect(stdout).toMatch(/usdc: block \d+, your leaves 1 \(40000000 base units\)/)
  })

  it.each(verifiers)(
    '%s passes on a copy served by another server, and on one rebuilt and signed again unchanged',
    async (_name, verify) => {
      verifyReserves = verify
      expect((await verifyWorld(await fetchWorld(t, alice.token))).problems).toEqual([])
      const world = await reforge(t, await fetchWorld(t, alice.token), 'usdc')
      expect((await verifyWorld(world, { attestation: attestation() })).problems).toEqual([])
    },
  )

  it('the client package passes against the app itself, with the published attestation address', async () => {
    const result = await verifyByPackage({
      baseUrl: url,
      token: alice.token,
      rpcUrl: rpc,
      attestationAddress: attestation(),
    })
    expect(result.problems).toEqual([])
    expect(result.ok).toBe(true)
    const usdc = result.coins.find((c) => c.coin === 'usdc')
    expect(usdc).toMatchObject({ leaves: 1, balance: '40000000' })
    // another address as the published one fails every coin
    const other = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address
    const wrong = await verifyByPackage({
      baseUrl: url,
      token: alice.token,
      rpcUrl: rpc,
      attestationAddress: other,
    })
    expect(wrong.ok).toBe(false)
    expect(wrong.problems.join('\n')).toMatch(/usdc: attested by 0x[0-9a-f]{40}, not by the published key/)
    // a token the service refuses: reported, not thrown
    const refused = await verifyByPackage({ baseUrl: url, token: 'not-a-token', rpcUrl: rpc })
    expect(refused.ok).toBe(false)
    expect(refused.problems.join('\n')).toMatch(/GET \/v1\/account: HTTP 401/)
  })

  it('the script exits 1 and says what failed', async () => {
    const world = await fetchWorld(t, alice.token)
    world.proofs.get(world.list[0].id).leaves[0].balance = '1'
    const server = await serve(t, world)
    try {
      const err: any = await promisify(execFile)(process.execPath, [
        'clients/verify-reserves/verify.mjs',
        `--url=${server.url}`,
        `--token=${alice.token}`,
        `--rpc=${rpc}`,
      ]).catch((e) => e)
      expect(err.code).toBe(1)
      expect(err.stdout).toContain('FAILED')
    } finally {
      await server.close()
    }
  })
})

describe.each(verifiers)('%s on a tampered copy', (_name, verify) => {
  beforeAll(() => {
    verifyReserves = verify
  })

  it('a changed balance', async () => {
    const world = await fetchWorld(t, alice.token)
    const usdc = world.list.find((s) => s.coin === 'usdc')
    const leaf = world.proofs.get(usdc.id).leaves.find((l: any) => l.kind === 'wallet')
    leaf.balance = (BigInt(leaf.balance) + 1n).toString()
    expectFailure(await verifyWorld(world), /its hash is not sha256/)
    delete leaf.hash
    expectFailure(await verifyWorld(world), /does not lead to the signed root/)
  })

  it('an omitted user (their wallet left out of a consistently signed tree)', async () => {
    const world = await reforge(t, await fetchWorld(t, alice.token), 'usdc', {
      leaves: (mine) => mine.filter((l) => l.kind !== 'wallet'),
    })
    expectFailure(
      await verifyWorld(world),
      new RegExp(`usdc: your wallet \\(user:${alice.id}\\) is not in the tree`),
    )
  })

  it('a negative leaf (a sibling sum below zero lowering the total)', async () => {
    const world = await fetchWorld(t, alice.token)
    const avax = world.list.find((s) => s.coin === 'avax')
    world.proofs.get(avax.id).leaves[0].path[0].sum = '-5'
    expectFailure(await verifyWorld(world), /path step 0 sum is not a non-negative integer/)
    const neg = await fetchWorld(t, alice.token)
    neg.proofs.get(avax.id).leaves[0].balance = '-1'
    expectFailure(await verifyWorld(neg), /balance is not a non-negative integer/)
  })

  it('a reused salt (the same salt on two leaves, in a consistently signed tree)', async () => {
    const world = await reforge(t, await fetchWorld(t, alice.token), 'avax', {
      leaves: (mine) => {
        const wallet = mine.find((l) => l.kind === 'wallet')
        return mine.map((l) => ({ ...l, salt: wallet.salt }))
      },
    })
    expectFailure(await verifyWorld(world), /reuses the salt/)
  })

  it('a forged attestation', async () => {
    const world = await fetchWorld(t, alice.token)
    const forger = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`)
    const usdc = world.list.find((s) => s.coin === 'usdc')
    const signature = await forger.signMessage({ message: usdc.message })
    for (const s of [usdc, world.details.get(usdc.id), world.proofs.get(usdc.id).snapshot])
      s.signature = signature
    expectFailure(await verifyWorld(world), /usdc: the attestation is not signed by/)
    // The forger's own address in place of the platform's: caught against the published key.
    for (const s of [usdc, world.details.get(usdc.id), world.proofs.get(usdc.id).snapshot])
      s.attestationAddress = forger.address.toLowerCase()
    expectFailure(await verifyWorld(world, { attestation: attestation() }), /not by the published key/)
  })

  it('a changed total the signature does not cover', async () => {
    const world = await fetchWorld(t, alice.token)
    const usdc = world.list.find((s) => s.coin === 'usdc')
    for (const s of [usdc, world.details.get(usdc.id), world.proofs.get(usdc.id).snapshot])
      s.reservesTotal = (BigInt(s.reservesTotal) + 1n).toString()
    expectFailure(await verifyWorld(world), /the signed message does not state these fields/)
  })

  it('a reserve address without its signature', async () => {
    const world = await fetchWorld(t, alice.token)
    const avax = world.list.find((s) => s.coin === 'avax')
    const detail = world.details.get(avax.id)
    detail.reserves[0].signature = '0x'
    expectFailure(await verifyWorld(world), /has no valid signature of the snapshot by its own key/)
    // another address's signature does not do either
    const other = await fetchWorld(t, alice.token)
    const d2 = other.details.get(avax.id)
    const stranger = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`)
    d2.reserves[0].signature = await stranger.signMessage({ message: avax.message })
    expectFailure(await verifyWorld(other), /has no valid signature/)
  })

  it('a reserve balance the chain does not show at the block', async () => {
    const world = await reforge(t, await fetchWorld(t, alice.token), 'avax', {
      reserves: (rs) =>
        rs.map((r, i) => (i === 0 ? { ...r, balance: (BigInt(r.balance) + AVAX).toString() } : r)),
    })
    expectFailure(await verifyWorld(world), /holds \d+ at block \d+, not \d+/)
  })

  it('a reserve counted twice across coins (consistently signed)', async () => {
    const world = await fetchWorld(t, alice.token)
    const avax = world.details.get(world.list.find((s) => s.coin === 'avax').id)
    // usdc claims avax's addresses and asset, each balance true on chain, everything signed again
    await reforge(t, world, 'usdc', { fields: { asset: avax.asset }, reserves: () => avax.reserves })
    expectFailure(await verifyWorld(world), /counted (again|twice)/)
  })
})
