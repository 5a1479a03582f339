// Steps of the restore tests on escrow and fee addresses: what the lost timeline did on the real dev
// chain from a custodial address the database knows (a gas top-up of it, then a transaction its key
// signs, neither recorded), the open finding of a transaction, and a reconciliation that must pass.
import type { Address } from 'viem'
import { expect } from 'vitest'
import { expectOk } from '../admin/helpers.ts'
import type { TestApp } from '../helpers/app.ts'
import { expectConsistent } from '../helpers/money.ts'
import type { adminCalls } from './support.ts'

type Api = ReturnType<typeof adminCalls>

/** The gas wallet's top-up of `address` that the database never records. */
export async function lostTopUp(t: TestApp, address: string, amount: bigint) {
  const { chain } = t.app.services
  const sent = await chain.gasWallet.send({ coin: 'avax', to: address, amount })
  expect((await chain.waitForReceipt(sent.hash)).status).toBe('success')
  return sent.hash.toLowerCase()
}

/**
 * Signs and sends `amount` of `coin` from the custodial `address` with its own key at its next
 * nonce, recording nothing: what the platform sent in the timeline the restore lost. Its hash.
 */
export async function lostSend(t: TestApp, address: string, coin: string, to: string, amount: bigint) {
  const { chain, keys } = t.app.services
  const from = address.toLowerCase() as Address
  const key = await keys.privateKey(t.database.db, from)
  const signed = await chain.signTransfer(key, {
    coin,
    to,
    amount,
    nonce: await chain.getNonce(from, 'pending'),
  })
  await chain.broadcast(signed.raw)
  expect((await chain.waitForReceipt(signed.hash)).status).toBe('success')
  return signed.hash.toLowerCase()
}

/** What the deposit watcher's job does when it runs: reads the chain up to its confirmed head. */
export const scan = (t: TestApp) => t.app.services.settlement.watcher.scanNow()

export async function openFinding(api: Api, txHash: string) {
  const page = expectOk(await api.get('/v1/admin/platform-transfers?status=open&limit=100'))
  const found = page.data.find((f: { txHash: string }) => f.txHash === txHash)
  expect(found, `finding of ${txHash}`).toBeDefined()
  return found
}

/** The ledger's invariants, the chain against the ledger, and a reconciliation run: all clean. */
export async function expectReconciled(t: TestApp, api: Api) {
  await expectConsistent(t)
  const r = expectOk(
    await api.post('/v1/admin/reconciliation/run', {
      reason: 'Check after re-attaching a restore’s transfers',
    }),
  )
  expect(r, JSON.stringify(r)).toMatchObject({ status: 'ok', violations: [], halted: [] })
}

/** Rows of chain movements still parked (none is left once every finding is resolved and the
 * coins resumed). */
export const parkedLeft = (t: TestApp) =>
  t.database.db.selectFrom('chainEvents').select(['txHash', 'kind']).where('held', 'is not', null).execute()
