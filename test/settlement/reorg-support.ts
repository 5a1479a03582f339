// Shared steps of the deep-reorganisation tests: a test app with admins, a deposit made on the
// real dev chain and then taken back by a reorganisation (a snapshot before it, a revert and a
// longer branch without it, made with the devnet's evm_snapshot/evm_revert), and the admin calls.
import type { Hex } from 'viem'
import { expect } from 'vitest'
import type { SignedTransfer } from '../../src/platform/chain/types.ts'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'

export interface ReorgWorld {
  t: TestApp
  admin: TestUser
  /** a dev account outside the platform that pays deposits */
  payer: { address: Hex; privateKey: Hex }
}

export async function openReorgWorld(
  payerIndex = 7,
  opts: { env?: Record<string, string>; elevate?: boolean } = {},
): Promise<ReorgWorld> {
  const run = runId()
  const t = await createTestApp({ env: { ...adminEnv(run), ...opts.env } })
  const admin = await createAdmin(t, run, 0, opts.elevate ?? true)
  const payer = t.app.services.chain.devnet!.accounts[payerIndex]!
  await t.app.services.chain.devnet!.fund(payer.address, 'usdc', 1_000_000n * 10n ** 6n)
  return { t, admin, payer }
}

/** Signs and sends a deposit from the payer (outside the platform); answers the signed transaction. */
export async function deposit(
  w: ReorgWorld,
  to: string,
  coin: string,
  amount: bigint,
): Promise<SignedTransfer> {
  const c = w.t.app.services.chain
  const signed = await c.signTransfer(w.payer.privateKey, {
    coin,
    to,
    amount,
    nonce: await c.getNonce(w.payer.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  expect((await c.waitForReceipt(signed.hash)).status).toBe('success')
  return signed
}

async function cursorBlock(t: TestApp): Promise<bigint> {
  const row = await t.database.db
    .selectFrom('chainCursors')
    .select('blockNumber')
    .where('chainId', '=', String(t.app.services.chain.chainId))
    .executeTakeFirstOrThrow()
  return BigInt(row.blockNumber)
}

/**
 * Runs `before` (deposits, spending) on a branch of the chain that is then replaced: the watcher
 * credits what `before` did, the chain reverts to before it and grows a longer branch without it,
 * and the watcher's next pass meets the replaced blocks. Answers what `before` answered.
 */
export async function deepReorg<T>(w: ReorgWorld, before: () => Promise<T>): Promise<T> {
  const { t } = w
  const s = t.app.services
  const devnet = s.chain.devnet!
  await s.settlement.watcher.scanNow()
  const id = await devnet.snapshot()
  const base = await s.chain.blockNumber()
  const out = await before()
  await s.settlement.watcher.scanNow()
  const cursor = await cursorBlock(t)
  expect(cursor).toBeGreaterThan(base)
  expect(await devnet.revert(id)).toBe(true)
  // another branch, longer than what the watcher had processed
  await devnet.mine(Number(cursor - base) + 2)
  await s.settlement.watcher.scanNow()
  return out
}

export function adminCalls(w: ReorgWorld) {
  const { t } = w
  const get = (url: string, token = w.admin.token) => t.req({ method: 'GET', url, token })
  const post = (
    url: string,
    payload: Record<string, unknown> = { reason: 'reorg checked on the explorer' },
    token = w.admin.token,
  ) => t.req({ method: 'POST', url, token, payload })
  return {
    get,
    post,
    async findings(query = '') {
      return expectOk(await get(`/v1/admin/reorgs${query}`))
    },
    /** the finding of a deposit transaction (and coin) */
    async finding(txHash: string, coin: string) {
      const page = await this.findings('?limit=100')
      const found = page.data.find((f: any) => f.txHash === txHash.toLowerCase() && f.coin === coin)
      expect(found, `a finding of ${txHash}`).toBeTruthy()
      return found
    },
    /** resumes every halted coin through the admin API */
    async resumeAll() {
      for (const h of await t.app.services.settlement.halts.list())
        expectOk(await post(`/v1/admin/coins/${h.coin}/resume`, { reason: 'findings resolved' }))
    },
  }
}
