// `npm run keys -- <status|rotate|verify|revoke-sessions>` (`node dist/keys.js …` in the image): the
// key-encryption key's operations over the service's own configuration and database. `rotate`
// re-seals every sealed secret under KEY_ENCRYPTION_KEY_ID, `status` counts the values each key id
// still seals (retire a key once it has none), `verify` opens every value. `revoke-sessions`
// revokes every session of every account (a leaked JWT_SECRET, a restore), announced to every
// running process. See docs/operations.md.
import { loadConfigOrExit, openServiceDatabase } from './command-line.ts'
import type { Database } from './db/index.ts'
import { keyStatus, RotationRefused, rotateKeys, verifyKeys } from './keys/rotation.ts'
import { SessionCache } from './modules/auth/session-cache.ts'
import { SessionIssuer } from './modules/auth/sessions.ts'
import { TokenService } from './modules/auth/tokens.ts'
import { systemClock } from './platform/clock.ts'
import { createSecretBox } from './platform/crypto/secrets.ts'

const usage = 'usage: keys <status|rotate|verify|revoke-sessions> [--batch-size N]'
const [command, ...rest] = process.argv.slice(2)
if (!command || !['status', 'rotate', 'verify', 'revoke-sessions'].includes(command)) {
  console.error(usage)
  process.exit(2)
}
let batchSize = 200
for (let i = 0; i < rest.length; i++) {
  const n = Number(rest[i + 1])
  if (rest[i] === '--batch-size' && Number.isInteger(n) && n >= 1 && n <= 10_000) {
    batchSize = n
    i++
  } else {
    console.error(usage)
    process.exit(2)
  }
}

const config = loadConfigOrExit()

const say = (line: string) => console.log(line)

async function status(database: Database): Promise<number> {
  const rows = await keyStatus(database.db)
  const totals: Record<string, number> = {}
  for (const r of rows) {
    const parts = Object.entries(r.byKeyId).map(([id, n]) => `${id}: ${n}`)
    say(`${r.column.padEnd(24)} ${parts.length ? parts.join(', ') : 'none'}`)
    for (const [id, n] of Object.entries(r.byKeyId)) totals[id] = (totals[id] ?? 0) + n
  }
  say(`current key id: ${config.keyEncryptionKeyId}`)
  const known = new Set([config.keyEncryptionKeyId, ...Object.keys(config.previousKeyEncryptionKeys)])
  for (const id of [...known].filter((k) => k !== config.keyEncryptionKeyId))
    say(
      `key id ${id}: ${totals[id] ?? 0} value(s) ${totals[id] ? 'still sealed under it' : '(can be retired)'}`,
    )
  const unknown = Object.keys(totals).filter((id) => !known.has(id))
  for (const id of unknown)
    say(`key id ${id}: ${totals[id]} value(s) under a key this configuration does not have`)
  return unknown.length > 0 ? 1 : 0
}

async function main(): Promise<number> {
  const keys = { ...config.previousKeyEncryptionKeys, [config.keyEncryptionKeyId]: config.keyEncryptionKey }
  const secrets = createSecretBox(keys, config.keyEncryptionKeyId)
  const database = await openServiceDatabase(config, 2)
  try {
    if (command === 'status') return await status(database)
    if (command === 'revoke-sessions') {
      // The notification every API process's session cache listens to goes out at the commit.
      const sessions = new SessionIssuer({
        db: database.db,
        clock: systemClock,
        tokens: new TokenService(config.jwtSecret, systemClock),
        cache: new SessionCache(),
      })
      say(`${await sessions.revokeEveryone(database.db)} session(s) revoked: everyone signs in again`)
      return 0
    }
    if (command === 'verify') {
      const { checked, failures } = await verifyKeys(database.db, secrets)
      for (const f of failures) say(`does not open: ${f.column} row ${f.id} (key id ${f.keyId ?? 'none'})`)
      say(`${checked} sealed value(s) checked, ${failures.length} do not open`)
      return failures.length ? 1 : 0
    }
    const controller = new AbortController()
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        say(`${signal}: stopping after the batch in progress`)
        controller.abort()
      })
    say(`re-sealing under key id ${config.keyEncryptionKeyId} (batches of ${batchSize})`)
    const result = await rotateKeys({
      db: database.db,
      secrets,
      currentKeyId: config.keyEncryptionKeyId,
      batchSize,
      signal: controller.signal,
      onProgress: (p) =>
        say(
          `${p.column}: ${p.resealed}/${p.total} re-sealed` +
            (p.skipped ? `, ${p.skipped} changed meanwhile` : '') +
            (p.failed ? `, ${p.failed} do not open` : ''),
        ),
    })
    for (const f of result.failures) say(`not re-sealed: ${f.column} row ${f.id}: ${f.reason}`)
    if (result.interrupted) {
      say('interrupted: every row is whole; run `keys rotate` again to carry on')
      return 130
    }
    for (const c of result.columns) say(`${c.column}: done, ${c.resealed} re-sealed`)
    await status(database)
    return result.failures.length ? 1 : 0
  } catch (err) {
    if (err instanceof RotationRefused) {
      console.error(`refused: ${err.message}`)
      return 2
    }
    if ((err as { code?: string }).code === '42P01') {
      console.error('this database has no tables of the service yet: run `npm run migrate` first')
      return 2
    }
    throw err
  } finally {
    await database.close()
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
