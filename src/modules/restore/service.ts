// Restore mode: what a process does first on a restored database, before anything reaches outside
// again. It parks every queued job with an outside effect (mail, webhooks, chain transfers, object
// deletions) for an operator to release or drop, ends the sessions of operators (and every
// step-up), and reports what the chain holds after the backup: the backup's moment and last
// processed block, the chain's head, the platform's own transactions after that block that the
// database does not know (by custodial address and nonce), the deposits after it, and what to do.
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter, Confirmations } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { type ParkedJob, parking } from '../../platform/jobs/parking.ts'
import type { AuthService } from '../auth/types.ts'
import { chainAfterBackup, unknownNoncesAhead } from '../settlement/module.ts'
import { type ChainAfterBackup, type OutgoingSender, TRANSFER_JOBS } from '../settlement/types.ts'
import type { PlatformTransfers } from './platform-transfers.ts'
import { restoreRepo } from './repo.ts'

/** Job kinds whose run reaches outside the platform: parked by a restore for review. */
export const OUTSIDE_EFFECT_KINDS = [
  'mail.send',
  'notifications.email',
  'webhooks.deliver',
  ...TRANSFER_JOBS,
  'files.delete-object',
] as const
/** a parked job that sends an outgoing transfer (a payout's or a gas top-up's) */
const sendsTransfer = (kind: string) => (TRANSFER_JOBS as readonly string[]).includes(kind)

export interface RestoreReport {
  /** the newest moment the copy records (the backup was taken at or just after it) */
  backupTime: string | null
  chain: ChainAfterBackup & { chainId: number; kind: string }
  /** unknown platform transfers the watcher has recorded already and nobody re-attached */
  openFindings: number
  /** jobs parked by this pass, by kind, and every parked job now */
  parkedNow: Record<string, number>
  parkedTotal: number
  /** operator accounts whose sessions were ended, and step-ups dropped */
  operatorsSignedOut: number
  elevationsEnded: number
  /** what an operator should do next, in order */
  steps: string[]
}

type Audit = (tx: Tx, job: ParkedJob) => Promise<void>

export class RestoreService {
  constructor(
    private readonly deps: {
      db: Db
      chain: ChainAdapter
      clock: Clock
      log: Logger
      confirmations: Confirmations
      auth: Pick<AuthService, 'revokeSessions'>
      platformTransfers: Pick<PlatformTransfers, 'openCount'>
      outgoing: Pick<OutgoingSender, 'get'>
    },
  ) {}

  /** Parks, signs operators out, and reports (what `RESTORE_MODE=true` and `restore:check` run). */
  async enter(opts: { maxBlocks?: number } = {}): Promise<RestoreReport> {
    const { db, auth, log } = this.deps
    const parkedNow = await parking.park(db, OUTSIDE_EFFECT_KINDS)
    const { operators, elevations } = await db.transaction().execute(async (tx) => {
      const ids = await restoreRepo.operatorIds(tx)
      for (const id of ids) await auth.revokeSessions(tx, id)
      return { operators: ids.length, elevations: await restoreRepo.dropElevations(tx) }
    })
    log.warn(
      {
        event: 'restore.entered',
        parked: parkedNow,
        operatorsSignedOut: operators,
        elevationsEnded: elevations,
      },
      'restore mode: jobs with an outside effect parked for review, operator sessions ended',
    )
    return this.report({ ...opts, parkedNow, operators, elevations })
  }

  /** The report alone (nothing changed). */
  async report(
    opts: {
      maxBlocks?: number
      parkedNow?: Record<string, number>
      operators?: number
      elevations?: number
    } = {},
  ): Promise<RestoreReport> {
    const { db, chain, confirmations } = this.deps
    const [backupTime, seen, parkedTotal, openFindings] = await Promise.all([
      restoreRepo.lastWrite(db),
      chainAfterBackup(db, chain, {
        confirmations,
        ...(opts.maxBlocks ? { maxBlocks: opts.maxBlocks } : {}),
      }),
      parking.count(db),
      this.deps.platformTransfers.openCount(),
    ])
    const report: RestoreReport = {
      backupTime: backupTime?.toISOString() ?? null,
      chain: { ...seen, chainId: chain.chainId, kind: chain.kind },
      openFindings,
      parkedNow: opts.parkedNow ?? {},
      parkedTotal,
      operatorsSignedOut: opts.operators ?? 0,
      elevationsEnded: opts.elevations ?? 0,
      steps: [],
    }
    report.steps = stepsOf(report)
    return report
  }

  // ---- parked jobs -----------------------------------------------------------------------------

  listParked(q: { kind?: string | undefined; page: number; limit: number }) {
    return parking.list(this.deps.db, q)
  }

  /**
   * Queued again, due now (audited in the same transaction). A parked outgoing transfer is not
   * released while its sending address has mined transactions this database does not know: it may
   * be the very transfer the lost timeline paid, and would be signed again at the next nonce.
   */
  async release(id: string, audit: Audit): Promise<ParkedJob> {
    const peek = await parking.lock(this.deps.db, id)
    if (peek && sendsTransfer(peek.kind)) {
      const transfer = await this.deps.outgoing.get(this.deps.db, String(peek.about.id))
      if (
        transfer &&
        transfer.status === 'queued' &&
        (await unknownNoncesAhead(this.deps.db, this.deps.chain, transfer.from))
      )
        throw errors.named(
          'PARKED_TRANSFER_NONCES_AHEAD',
          'The sending address has transactions on chain this database does not know: let the watcher read them, re-attach each (or mark it external), then release the transfer',
          { transferId: transfer.id, from: transfer.from },
        )
    }
    return this.deps.db.transaction().execute(async (tx) => {
      const job = await this.#lockParked(tx, id)
      await parking.release(tx, id, this.deps.clock.now())
      await audit(tx, job)
      return job
    })
  }

  /** Deleted (audited in the same transaction). A parked transfer is never dropped: its hold would
   * stay reserved with nothing left to post or void it. */
  async drop(id: string, audit: Audit): Promise<ParkedJob> {
    return this.deps.db.transaction().execute(async (tx) => {
      const job = await this.#lockParked(tx, id)
      if (sendsTransfer(job.kind))
        throw errors.named(
          'PARKED_TRANSFER_NOT_DROPPABLE',
          'A parked outgoing transfer is released or its transfer cancelled, never dropped',
          { transferId: job.about.id },
        )
      await parking.drop(tx, id)
      await audit(tx, job)
      return job
    })
  }

  async #lockParked(tx: Tx, id: string): Promise<ParkedJob> {
    const job = await parking.lock(tx, id)
    if (job) return job
    if (await parking.exists(tx, id)) throw errors.named('JOB_NOT_PARKED', 'This job is not parked')
    throw errors.notFound('parked job')
  }
}

/** What an operator should do next, from what the report found. */
export function stepsOf(r: RestoreReport): string[] {
  const steps: string[] = []
  const c = r.chain
  if (c.kind === 'devnet')
    steps.push(
      'Embedded dev chain: its journal is kept in the database, so this restore rewound the dev chain together with the ledger; nothing after the backup exists on it.',
    )
  if (c.cursorOnChain === false)
    steps.push(
      `The block the backup had processed (${c.cursor?.number}) is not on this chain with that hash: the watcher will halt every coin (reorg) when it runs. Check EVM_RPC_URLS points at the right chain first.`,
    )
  if (c.unknownPlatformTransfers.length > 0 || r.openFindings > 0)
    steps.push(
      `${c.unknownPlatformTransfers.length} transaction(s) the platform signed after the backup are on chain and unknown to this database${r.openFindings ? ` (${r.openFindings} already recorded)` : ''}. When the watcher reads them their coins halt (unknown_platform_transfer); re-attach each to its withdrawal, escrow leg or fee sweep, or book an escrow's or the fee address's one that matches nothing as a loss (console: Unknown platform transfers; POST /v1/admin/platform-transfers/{id}/reattach | loss) before resuming the coins. Release no parked outgoing transfer of those addresses first: it would be signed again at a new nonce and paid twice — cancel it, or name its withdrawal (its leg, its sweep) when re-attaching.`,
    )
  if (c.deposits.length > 0)
    steps.push(
      `${c.deposits.length} deposit(s) arrived after the backup: the deposit watcher credits each once as it carries on from block ${c.cursor?.number}.`,
    )
  const topUps = c.deposits.filter((d) => d.fromPlatform === 'gasWallet')
  if (topUps.length > 0)
    steps.push(
      `${topUps.length} of those came from the platform's gas wallet (gas top-ups the copy lost): the watcher books each as the platform's gas at the address (its treasury account), never as the owner's deposit, and a re-attach of that address's transaction books them first.`,
    )
  const fromTreasury = c.deposits.filter((d) => d.fromPlatform === 'treasury')
  if (fromTreasury.length > 0)
    steps.push(
      `${fromTreasury.length} of those deposits came from the platform's treasury (a payment the copy lost): the watcher credits them to the address's owner. Move each with a balanced correction (owner's account → the account it was meant for) before the owner can spend it.`,
    )
  if (c.scanned?.truncated)
    steps.push(
      `Only blocks ${c.scanned.from}–${c.scanned.to} were read; the chain goes on to ${c.confirmedHead}: run the report again with a larger --max-blocks, or look the addresses up on an explorer.`,
    )
  if (r.parkedTotal > 0)
    steps.push(
      `${r.parkedTotal} job(s) with an outside effect are parked: review each (GET /v1/admin/parked-jobs, or npm run restore -- jobs) and release or drop it. Mail and webhooks the world saw already would go out twice.`,
    )
  steps.push(
    'Operator sessions were ended; revoke every session too (npm run keys -- revoke-sessions) when sessions revoked after the backup must stay revoked.',
    'Check the sealed keys open: npm run keys -- verify (a backup from before a key-encryption-key rotation needs the retired key back in KEY_ENCRYPTION_KEYS_PREVIOUS).',
    'Start the workers (RESTORE_MODE unset), run a reconciliation (POST /v1/admin/reconciliation/run) and resume halted coins once every finding is resolved.',
  )
  return steps
}

/** The report as lines of text (what `restore:check` prints). */
export function reportText(r: RestoreReport): string[] {
  const c = r.chain
  const lines = [
    `backup: last write ${r.backupTime ?? 'unknown'}, last processed block ${c.cursor ? `${c.cursor.number} (${c.cursor.hash})` : 'none'}`,
    `chain ${c.chainId} (${c.kind}): head ${c.head}, confirmed head ${c.confirmedHead}${c.cursorOnChain === false ? ', the backup’s block is NOT on this chain' : ''}`,
    `read after the backup: ${c.scanned ? `blocks ${c.scanned.from}–${c.scanned.to}${c.scanned.truncated ? ' (stopped short)' : ''}` : 'nothing'}`,
    `platform transactions the database does not know: ${c.unknownPlatformTransfers.length}`,
    ...c.unknownPlatformTransfers.map(
      (u) =>
        `  ${u.txHash} block ${u.block} from ${u.address} (${u.ownerKind} ${u.ownerId}) nonce ${u.nonce} (database's next nonce ${u.databaseNextNonce ?? 'none'}): ${u.amount} ${u.coin} to ${u.to ?? '-'}, gas ${u.gasFee}`,
    ),
    `deposits after the backup: ${c.deposits.length}`,
    ...c.deposits.map(
      (d) =>
        `  ${d.txHash} block ${d.block} to ${d.address} (${d.ownerKind} ${d.ownerId}): ${d.amount} ${d.coin}${d.fromPlatform ? ` FROM THE PLATFORM'S ${d.fromPlatform}` : ''}`,
    ),
    `parked jobs: ${r.parkedTotal}${
      Object.keys(r.parkedNow).length
        ? ` (now: ${Object.entries(r.parkedNow)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')})`
        : ''
    }`,
    `operators signed out: ${r.operatorsSignedOut}, step-ups ended: ${r.elevationsEnded}`,
    'what to do:',
    ...r.steps.map((s, i) => `  ${i + 1}. ${s}`),
  ]
  return lines
}
