// A snapshot's sealed secret is re-sealed by a key-encryption-key rotation like every sealed
// column, although snapshots are otherwise never changed: the immutability trigger lets that one
// column change and still refuses any other update or a delete.
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rotateKeys } from '../../src/keys/rotation.ts'
import { sealedColumns } from '../../src/keys/sealed-columns.ts'
import { createSecretBox } from '../../src/platform/crypto/secrets.ts'
import { openTestDatabase } from '../helpers/app.ts'

const K1 = randomBytes(32)
const K2 = randomBytes(32)
const oldBox = createSecretBox({ k1: K1 }, 'k1')
const newBox = createSecretBox({ k1: K1, k2: K2 }, 'k2')
const onlyNew = createSecretBox({ k2: K2 }, 'k2')

let database: Awaited<ReturnType<typeof openTestDatabase>>
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(() => database?.close())

describe('reserve_snapshots.sealed_secret', () => {
  it('is re-sealed under the new key, and nothing else of a snapshot can change', async () => {
    const db = database.db
    const id = 'snap0rotation0test000001'
    const secret = randomBytes(32).toString('hex')
    await sql`
      insert into reserve_snapshots (id, run_id, chain_id, coin, asset, decimals, block_number, block_hash,
        taken_at, root_hash, liabilities_total, reserves_total, leaf_count, message, signature,
        attestation_address, sealed_secret, trigger)
      values (${id}, 'run1', '31337', 'usdc', 'usdc', 6, 1, '0xab', now(), '0xcd', 0, 0, 0, 'm', '0x',
        '0x0', ${oldBox.seal(secret, `reserves:${id}`)}, 'manual')`.execute(db)
    const columns = sealedColumns.filter((c) => c.table === 'reserve_snapshots')
    expect(columns.map((c) => c.name)).toEqual(['reserve_snapshots.sealed_secret'])
    const result = await rotateKeys({ db, secrets: newBox, currentKeyId: 'k2', columns })
    expect(result.failures).toEqual([])
    expect(result.columns[0]).toMatchObject({ resealed: 1 })
    const row = await sql<{ sealed: string }>`
      select sealed_secret as sealed from reserve_snapshots where id = ${id}`.execute(db)
    expect(onlyNew.open(row.rows[0]!.sealed, `reserves:${id}`)).toBe(secret)

    await expect(
      sql`update reserve_snapshots set root_hash = '0xee' where id = ${id}`.execute(db),
    ).rejects.toThrow(/never changed/)
    await expect(
      sql`update reserve_snapshots set sealed_secret = 'x', root_hash = '0xee' where id = ${id}`.execute(db),
    ).rejects.toThrow(/never changed/)
    await expect(sql`delete from reserve_snapshots where id = ${id}`.execute(db)).rejects.toThrow(
      /never changed/,
    )
  })
})
