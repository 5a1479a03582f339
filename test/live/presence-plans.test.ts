// A presence write reads the users it changes through the primary key, not the whole table: over
// 20,000 analysed accounts, the plan of the statement that sets each user's socket status (run at
// every socket opened or closed) has no sequential scan on users, and the statement sets ONLINE
// for a user with a socket on some process and OFFLINE for one without. PGlite and PostgreSQL are
// both PostgreSQL, so the same assertions hold on both drivers.
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { syncSocketStatusSql } from '../../src/modules/live/repo.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const ROWS = 20_000
const idOf = (i: number) => `lp${i.toString(16).padStart(22, '0')}`

let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
  await sql`
    insert into users (id, email, first_name, last_name, email_verified, user_name, referral_code, socket_status)
    select 'lp' || lpad(to_hex(i), 22, '0'), 'presence' || i || '@example.com', 'First' || i, 'Last' || i, true,
           'presence' || i, 'PRESENCE' || i, 'OFFLINE'
    from generate_series(1, ${ROWS}) i`.execute(t.database.db)
  await sql`analyze users`.execute(t.database.db)
}, 180_000)
afterAll(() => t.close())

it('sets socket statuses through the users primary key, not a scan of every user', async () => {
  const ids = [idOf(7), idOf(4242)]
  const { rows } = await sql<Record<string, string>>`explain ${syncSocketStatusSql(ids)}`.execute(
    t.database.db,
  )
  const plan = rows.map((r) => Object.values(r).join(' ')).join('\n')
  expect(plan).not.toMatch(/Seq Scan on users/)
  expect(plan).toMatch(/users_pkey/)
})

it('sets ONLINE for a user with a socket on some process and OFFLINE for one without', async () => {
  const [online, offline] = [idOf(11), idOf(12)]
  await sql`update users set socket_status = 'ONLINE' where id = ${offline}`.execute(t.database.db)
  await sql`insert into live_processes (id, heartbeat_at) values ('other-process', now())`.execute(
    t.database.db,
  )
  await sql`insert into live_presence (process_id, user_id, sockets) values ('other-process', ${online}, 2)`.execute(
    t.database.db,
  )
  await syncSocketStatusSql([online, offline]).execute(t.database.db)
  const statuses = await t.database.db
    .selectFrom('users')
    .select(['id', 'socketStatus'])
    .where('id', 'in', [online, offline])
    .orderBy('id')
    .execute()
  expect(statuses).toEqual([
    { id: online, socketStatus: 'ONLINE' },
    { id: offline, socketStatus: 'OFFLINE' },
  ])
})
