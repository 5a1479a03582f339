// Key-encryption key rotation on a real database and dev chain: every sealed value (custodial
// keys, TOTP secrets) ends under the current key and still opens (a key signs, a TOTP logs in),
// none is left under the old key; an interrupted rotation resumes; a rotation runs while
// withdrawals are being sent; a reused key id and a value under an unknown key are refused.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keyStatus, RotationRefused, rotateKeys, verifyKeys } from '../../src/keys/rotation.ts'
import { sealedColumns, sealedKeyId } from '../../src/keys/sealed-columns.ts'
import { createSecretBox } from '../../src/platform/crypto/secrets.ts'
import { api, base32Decode, expectOk, totpAt } from '../account/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
} from '../withdrawals/helpers.ts'

const K1 = Buffer.from('11'.repeat(32), 'hex')
const K2 = Buffer.from('22'.repeat(32), 'hex')
// The service runs with k2 as its key and k1 kept to open what was sealed before.
const oldBox = createSecretBox({ k1: K1, k2: K2 }, 'k1')
const newBox = createSecretBox({ k1: K1, k2: K2 }, 'k2')
const onlyNew = createSecretBox({ k2: K2 }, 'k2')

let t: TestApp
let a: ReturnType<typeof api>
let totpUser: TestUser & { secret: Buffer }

async function enableTotp(u: TestUser) {
  const init = expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 202)
  const secret = base32Decode(new URL(init.otpauthUrl).searchParams.get('secret')!)
  const code = totpAt(secret, t.clock.now().getTime())
  expectOk(await a.post('/v1/account/activate/2fa', { code }, u.token))
  t.clock.advance(30_000)
  return secret
}

/** Seals everything under k1 again: the state of a database before the rotation. */
async function sealAllUnderOldKey() {
  const back = await rotateKeys({ db: t.database.db, secrets: oldBox, currentKeyId: 'k1' })
  expect(back.failures).toEqual([])
  expect(await underKey('k2')).toBe(0)
}

async function underKey(keyId: string) {
  const status = await keyStatus(t.database.db)
  return status.reduce((sum, s) => sum + (s.byKeyId[keyId] ?? 0), 0)
}

beforeAll(async () => {
  t = await createTestApp({
    env: {
      KEY_ENCRYPTION_KEY: '22'.repeat(32),
      KEY_ENCRYPTION_KEY_ID: 'k2',
      KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${'11'.repeat(32)}`,
    },
  })
  a = api(t)
  const u = await createUser(t)
  totpUser = { ...u, secret: await enableTotp(u) }
  // A second user with a TOTP set-up started but not activated (two_fa_setups).
  const pending = await createUser(t)
  expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, pending.token), 202)
  for (let i = 0; i < 3; i++) await createUser(t)
})
afterAll(() => t?.close())

describe('keys rotate', () => {
  it('re-seals every value under the current key: all open without the old key, none stays under it', async () => {
    await sealAllUnderOldKey()
    const before = await keyStatus(t.database.db)
    const byColumn = Object.fromEntries(before.map((s) => [s.column, s.byKeyId]))
    expect(byColumn['wallet_keys.sealed_key']!.k1).toBeGreaterThanOrEqual(5)
    expect(byColumn['users.two_fa_secret']).toEqual({ k1: 1 })
    expect(byColumn['two_fa_setups.secret']!.k1).toBeGreaterThanOrEqual(1)
    // Without the old key, nothing opens yet.
    const blind = await verifyKeys(t.database.db, onlyNew)
    expect(blind.failures.length).toBe(blind.checked)

    const progress: number[] = []
    const result = await rotateKeys({
      db: t.database.db,
      secrets: newBox,
      currentKeyId: 'k2',
      batchSize: 2,
      onProgress: (p) => progress.push(p.resealed),
    })
    expect(result.interrupted).toBe(false)
    expect(result.failures).toEqual([])
    const total = result.columns.reduce((s, c) => s + c.resealed, 0)
    expect(total).toBe(blind.checked)
    expect(progress.length).toBeGreaterThan(2)
    expect(await underKey('k1')).toBe(0)
    expect(await underKey('k2')).toBe(blind.checked)

    // Every value opens with the new key alone.
    const check = await verifyKeys(t.database.db, onlyNew)
    expect(check).toEqual({ checked: blind.checked, failures: [] })

    // A custodial key signs for its own address after the rotation.
    const row = await t.database.db
      .selectFrom('walletKeys')
      .select(['address', 'sealedKey'])
      .where('ownerKind', '=', 'user')
      .where('ownerId', '=', totpUser.id)
      .executeTakeFirstOrThrow()
    expect(sealedKeyId(row.sealedKey)).toBe('k2')
    const pk = onlyNew.open(row.sealedKey, `wallet-key:${row.address}`) as `0x${string}`
    const account = privateKeyToAccount(pk)
    expect(account.address.toLowerCase()).toBe(row.address)
    const signature = await account.signMessage({ message: 'after rotation' })
    const { verifyMessage } = await import('viem')
    expect(await verifyMessage({ address: account.address, message: 'after rotation', signature })).toBe(true)

    // The service still logs in with the re-sealed TOTP secret.
    const challenge = expectOk(
      await a.post('/v1/auth/login', { email: totpUser.email, password: totpUser.password }),
    )
    expect(challenge.twoFaRequired).toBe(true)
    const code = totpAt(totpUser.secret, t.clock.now().getTime())
    expectOk(await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code }))
    t.clock.advance(30_000)

    // Running it again changes nothing.
    const again = await rotateKeys({ db: t.database.db, secrets: newBox, currentKeyId: 'k2' })
    expect(again.columns.every((c) => c.resealed === 0 && c.total === 0)).toBe(true)
  })

  it('an interrupted rotation leaves every row whole and the next run finishes it', async () => {
    await sealAllUnderOldKey()
    const all = await underKey('k1')
    const controller = new AbortController()
    const first = await rotateKeys({
      db: t.database.db,
      secrets: newBox,
      currentKeyId: 'k2',
      batchSize: 2,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    })
    expect(first.interrupted).toBe(true)
    const done = first.columns.reduce((s, c) => s + c.resealed, 0)
    expect(done).toBe(2)
    expect(await underKey('k2')).toBe(2)
    expect(await underKey('k1')).toBe(all - 2)
    // Half-way, everything opens for a process that knows both keys.
    expect((await verifyKeys(t.database.db, newBox)).failures).toEqual([])

    const second = await rotateKeys({ db: t.database.db, secrets: newBox, currentKeyId: 'k2', batchSize: 2 })
    expect(second.interrupted).toBe(false)
    expect(second.columns.reduce((s, c) => s + c.resealed, 0)).toBe(all - 2)
    expect(await underKey('k1')).toBe(0)
    expect((await verifyKeys(t.database.db, onlyNew)).failures).toEqual([])
  })

  it('runs while withdrawals are being signed and sent: each lands once, the ledger matches the chain', async () => {
    const users = [await createUser(t), await createUser(t), await createUser(t)]
    for (const [i, u] of users.entries()) await fundUser(t, 10 + i, u, 'avax', 2n * AVAX)
    await sealAllUnderOldKey()
    const targets: string[] = []
    for (const u of users) {
      const to = freshAddress()
      targets.push(to)
      const res = await t.req({
        method: 'POST',
        url: '/v1/withdrawals/',
        token: u.token,
        payload: { amount: 1, coin: 'avax', address: to, password: u.password },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    // The rotation advances one row right before each transfer is signed, so keys are read and
    // used for signing while the rotation is half-way; it then finishes beside the sender.
    const seen: { old: number; current: number }[] = []
    t.crash.hook = async (at) => {
      if (at !== 'before-sign') return
      const slice = new AbortController()
      await rotateKeys({
        db: t.database.db,
        secrets: newBox,
        currentKeyId: 'k2',
        batchSize: 1,
        signal: slice.signal,
        onProgress: () => slice.abort(),
      })
      seen.push({ old: await underKey('k1'), current: await underKey('k2') })
    }
    try {
      await settleAll(t)
    } finally {
      t.crash.hook = undefined
    }
    expect(seen.length).toBeGreaterThanOrEqual(3)
    expect(seen.every((s) => s.old > 0 && s.current > 0)).toBe(true)
    const rotation = await rotateKeys({
      db: t.database.db,
      secrets: newBox,
      currentKeyId: 'k2',
      batchSize: 1,
    })
    expect(rotation.failures).toEqual([])
    const statuses = await t.database.db
      .selectFrom('withdrawals')
      .select('status')
      .where(
        'ownerId',
        'in',
        users.map((u) => u.id),
      )
      .execute()
    expect(statuses.map((s) => s.status)).toEqual(['completed', 'completed', 'completed'])
    for (const to of targets) expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX)
    expect(await underKey('k1')).toBe(0)
    await expectConsistent(t)

    // And a withdrawal signed after the rotation, with a key re-sealed by it, lands too.
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: users[0]!.token,
      payload: { amount: 0.5, coin: 'avax', address: to, password: users[0]!.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await walletAddress(t, users[0]!)).toMatch(/^0x/)
  })

  it('refuses to rotate when the current key id already names other key material', async () => {
    const impostor = createSecretBox({ k1: K1, k2: Buffer.from('33'.repeat(32), 'hex') }, 'k2')
    await expect(
      rotateKeys({ db: t.database.db, secrets: impostor, currentKeyId: 'k2' }),
    ).rejects.toBeInstanceOf(RotationRefused)
    expect((await verifyKeys(t.database.db, onlyNew)).failures).toEqual([])
  })

  it('reports a value under a key it does not have, changes nothing of it, and re-seals the rest', async () => {
    const stray = createSecretBox({ k0: Buffer.from('44'.repeat(32), 'hex') }, 'k0')
    const victim = await createUser(t)
    const row = await t.database.db
      .selectFrom('walletKeys')
      .select(['id', 'address', 'sealedKey'])
      .where('ownerId', '=', victim.id)
      .executeTakeFirstOrThrow()
    await sealAllUnderOldKey()
    const strayValue = stray.seal('0x00', `wallet-key:${row.address}`)
    await t.database.db
      .updateTable('walletKeys')
      .set({ sealedKey: strayValue })
      .where('id', '=', row.id)
      .execute()

    const result = await rotateKeys({ db: t.database.db, secrets: newBox, currentKeyId: 'k2', batchSize: 3 })
    expect(result.failures).toEqual([
      { column: 'wallet_keys.sealed_key', id: row.id, reason: 'key id "k0" is not configured' },
    ])
    expect(await underKey('k1')).toBe(0)
    expect(await underKey('k0')).toBe(1)
    const kept = await t.database.db
      .selectFrom('walletKeys')
      .select('sealedKey')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow()
    expect(kept.sealedKey).toBe(strayValue)
    // The real value back, so the remaining checks of the file see a whole database.
    await t.database.db
      .updateTable('walletKeys')
      .set({ sealedKey: row.sealedKey })
      .where('id', '=', row.id)
      .execute()
  })
})

describe('sealed columns', () => {
  // Rotation knows the columns of src/keys/sealed-columns.ts only: code that seals a secret
  // somewhere else must add its column there (and here).
  const known: Record<string, string[]> = {
    'modules/settlement/keys.ts': ['wallet_keys.sealed_key'],
    'modules/account/security-codes.ts': ['users.two_fa_secret', 'two_fa_setups.secret'],
    'modules/reserves/snapshot.ts': ['reserve_snapshots.sealed_secret'],
    'modules/webhooks/service.ts': [
      'webhook_endpoints.secret_sealed',
      'webhook_endpoints.previous_secret_sealed',
    ],
  }

  it('every file that seals a secret has its columns in the rotation list', () => {
    const root = new URL('../../src/', import.meta.url).pathname
    const sealing: string[] = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (entry.name.endsWith('.ts') && /\.seal\(/.test(readFileSync(path, 'utf8')))
          sealing.push(path.slice(root.length))
      }
    }
    walk(root)
    const outside = sealing.filter((f) => !f.startsWith('platform/crypto/') && !f.startsWith('keys/'))
    expect(outside.sort()).toEqual(Object.keys(known).sort())
    expect(sealedColumns.map((c) => c.name).sort()).toEqual(Object.values(known).flat().sort())
  })
})
