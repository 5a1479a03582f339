// `npm run restore:check` (`node dist/restore.js check` in the image) and `npm run restore -- jobs …`:
// the first step on a restored database, over the service's own configuration. `check` applies
// pending migrations, parks every queued job with an outside effect (mail, webhooks, chain
// transfers, object deletions), ends operators' sessions and step-ups, and prints the restore
// report (the backup's moment and last block, the chain's head, the platform's own transactions
// after that block the database does not know, deposits after it, what to do). `jobs` lists the
// parked jobs; `jobs release|drop <id>|all --reason "…"` acts on them, each audited. See
// docs/operations.md.
import pino from 'pino'
import { loadConfigOrExit, openServiceDatabase } from './command-line.ts'
import { migrateToLatest } from './db/migrate.ts'
import { type HeldLock, holdSessionLock } from './db/session-lock.ts'
import { AppError } from './http/errors.ts'
import { restoreRepo } from './modules/restore/repo.ts'
import { reportText } from './modules/restore/service.ts'
import { systemClock } from './platform/clock.ts'
import type { ParkedJob } from './platform/jobs/parking.ts'
import { buildServices } from './root.ts'

const usage = [
  'usage: restore check [--max-blocks N] [--json]',
  '       restore jobs [list]',
  '       restore jobs release <job id|all> --reason "…"',
  '       restore jobs drop <job id> --reason "…"',
].join('\n')

const args = process.argv.slice(2)
const flag = (name: string) => {
  const i = args.indexOf(name)
  if (i < 0) return undefined
  const value = args[i + 1]
  args.splice(i, 2)
  return value ?? ''
}
const json = args.includes('--json')
if (json) args.splice(args.indexOf('--json'), 1)
const maxBlocksText = flag('--max-blocks')
const reason = flag('--reason')
const [command, action = 'list', target] = args
const maxBlocks = maxBlocksText === undefined ? undefined : Number(maxBlocksText)
const valid =
  (command === 'check' && (maxBlocks === undefined || (Number.isInteger(maxBlocks) && maxBlocks > 0))) ||
  (command === 'jobs' && action === 'list') ||
  (command === 'jobs' &&
    (action === 'release' || action === 'drop') &&
    target &&
    reason &&
    reason.trim().length >= 3)
if (!valid) {
  console.error(usage)
  process.exit(2)
}

const config = loadConfigOrExit()
const say = (line: string) => console.log(line)
// The services log as the service does (JSON on stderr), so stdout carries only the report.
const log = pino({ level: config.logLevel }, pino.destination(2))

async function main(): Promise<number> {
  const database = await openServiceDatabase(config, 4)
  let lock: HeldLock | undefined
  let close: (() => Promise<void>) | undefined
  try {
    // The in-process dev chain keeps its journal in the database: one process at a time.
    if (database.kind === 'postgres' && !config.evmRpcUrl) {
      lock = await holdSessionLock(database.db, 'workpay:in-process-dev-chain')
      if (!lock) {
        console.error(
          'another process runs the in-process dev chain on this database: stop it, or set EVM_RPC_URL',
        )
        return 2
      }
    }
    const applied = await migrateToLatest(database.db)
    if (applied.length) say(`migrations applied: ${applied.join(', ')}`)
    const built = await buildServices({ config, database, clock: systemClock, log })
    close = built.close
    const { restore } = built.services
    if (command === 'check') {
      const report = await restore.service.enter(maxBlocks ? { maxBlocks } : {})
      if (json) say(JSON.stringify({ ...report, text: reportText(report) }, null, 2))
      else for (const line of reportText(report)) say(line)
      return 0
    }
    if (action === 'list') {
      for (let page = 1; ; page++) {
        const { total, rows } = await restore.service.listParked({ page, limit: 100 })
        if (page === 1) say(`${total} parked job(s)`)
        for (const j of rows)
          say(`${j.id} ${j.kind} created ${j.createdAt.toISOString()} ${JSON.stringify(j.about)}`)
        if (page * 100 >= total) break
      }
      return 0
    }
    const by = `cli:${process.env.USER ?? 'unknown'}`
    const audit =
      (kind: 'release' | 'drop') => async (tx: Parameters<typeof restoreRepo.audit>[0], job: ParkedJob) =>
        restoreRepo.audit(tx, `parked-job.${kind}`, {
          jobId: job.id,
          kind: job.kind,
          about: job.about,
          by,
          reason,
        })
    const ids =
      target === 'all' && action === 'release'
        ? (await restore.service.listParked({ page: 1, limit: 100_000 })).rows.map((j) => j.id)
        : [target!]
    for (const id of ids) {
      const job =
        action === 'release'
          ? await restore.service.release(id, audit('release'))
          : await restore.service.drop(id, audit('drop'))
      say(`${action === 'release' ? 'released' : 'dropped'} ${job.id} ${job.kind}`)
    }
    return 0
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`${err.code}: ${err.message}`)
      return 1
    }
    throw err
  } finally {
    await close?.()
    await lock?.release()
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
