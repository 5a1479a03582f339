// Deep reorganisations repaired, not only halted. When the watcher finds that a block it had
// processed was replaced, the deposits it had recorded in replaced blocks are checked against the
// chain as it now is (detect.ts); those that vanished become findings, recorded in the halt's own
// transaction:
// - a credited one: its value is put on hold at once on the account it credited (a ledger hold, so
//   it can be neither withdrawn nor spent); what the owner had already spent of it is the finding's
//   shortfall;
// - a parked one (its coin was halted, so it was never credited): taken out of the parking, so the
//   coin's resumption does not credit it (`dropped`).
// An operator then resolves each open finding, audited:
// - reverse: the hold is posted back to where the credit came from (the chain's clearing account);
//   what the wallet holds now beyond the hold is taken too, up to the shortfall; the rest of the
//   shortfall is booked to the platform's loss account. The deposit's transaction record turns
//   `failed`, and the owner is notified.
// - keep: only when the deposit is on the canonical chain again with its confirmations (and the
//   watcher did not record it anew, as another movement); the hold is voided and the credit
//   stands.
import type { Logger } from 'pino'
import type { Db, Tx } from '../../../db/index.ts'
import type { ReorgFindingStatus } from '../../../db/tables/reorgs.ts'
import { errors } from '../../../http/errors.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import { formatUnits } from '../../../platform/money/index.ts'
import type { EventService } from '../../events/types.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { TransactionService } from '../../transactions/types.ts'
import { watcherRepo } from '../watcher/repo.ts'
import { type FindingRow, type RecordedDeposit, reorgRepo } from './repo.ts'
import { depositState } from './verify.ts'

/** ledger owner id of the platform's loss account (kind `platform_loss`, one per coin) */
export const PLATFORM_LOSS_OWNER = ''

/** A finding as the operator sees it: its amounts (base units) and block number as decimal
 * strings. */
export type ReorgFinding = Omit<FindingRow, 'blockNumber' | 'accountId'> & { blockNumber: string }

export interface ReorgDeps {
  db: Db
  chain: ChainAdapter
  clock: Clock
  log: Logger
  ledger: Ledger
  events: Pick<EventService, 'emit'>
  /** the users' transaction records: a reversed deposit's record says so */
  transactions: Pick<TransactionService, 'update'>
  /** the newest block with the configured confirmations on the chain as it is now */
  confirmedHead(): Promise<bigint>
}

const view = (r: FindingRow): ReorgFinding => ({
  ...r,
  blockNumber: String(r.blockNumber),
  amount: String(r.amount),
  held: String(r.held),
  shortfall: String(r.shortfall),
})

const min = (a: bigint, b: bigint) => (a < b ? a : b)

export class ReorgRepairs {
  constructor(private readonly deps: ReorgDeps) {}

  /**
   * Records the vanished deposits inside the caller's transaction (the one that halts the coins):
   * a hold and a finding for each credited one, the parking emptied of each parked one. A deposit
   * found before is left as it is. Answers the findings written.
   */
  async record(tx: Tx, vanished: RecordedDeposit[], context: Record<string, unknown>): Promise<number> {
    const { ledger, clock, log } = this.deps
    const now = clock.now()
    let written = 0
    for (const d of vanished) {
      if (await reorgRepo.exists(tx, d)) continue
      const id = newId()
      const base = {
        id,
        chainId: d.chainId,
        txHash: d.txHash,
        logIndex: d.logIndex,
        address: d.address,
        ownerKind: d.ownerKind,
        ownerId: d.ownerId,
        coin: d.coin,
        amount: d.amount,
        blockNumber: d.blockNumber,
        blockHash: d.blockHash,
        creditTransferId: d.transferId,
        accountId: d.accountId,
        detectedAt: now,
      }
      if (d.parked || !d.transferId || !d.accountId) {
        await reorgRepo.dropParked(tx, d)
        await reorgRepo.insert(tx, {
          ...base,
          credited: false,
          holdId: null,
          held: '0',
          shortfall: '0',
          status: 'dropped',
          resolvedAt: now,
          resolvedBy: 'system',
          resolveReason: 'parked while its coin was halted and never credited: taken out of the parking',
        })
      } else {
        const account = await ledger.account(tx, d.accountId, { forUpdate: true })
        const available = account && account.available > 0n ? account.available : 0n
        const held = min(d.amount, available)
        const hold =
          held > 0n
            ? await ledger.hold(tx, {
                key: `reorg:${d.chainId}:${d.txHash}:${d.logIndex}:${d.address}:hold`,
                coin: d.coin,
                account: d.accountId,
                amount: held,
                kind: 'reorg.hold',
                description: `Deposit ${d.txHash} taken back by a chain reorganisation: held until an operator decides`,
              })
            : undefined
        await reorgRepo.insert(tx, {
          ...base,
          credited: true,
          holdId: hold?.id ?? null,
          held: held.toString(),
          shortfall: (d.amount - held).toString(),
          status: 'open',
        })
      }
      written++
      const meta = {
        findingId: id,
        ...context,
        txHash: d.txHash,
        logIndex: d.logIndex,
        address: d.address,
        owner: `${d.ownerKind}:${d.ownerId}`,
        coin: d.coin,
        amount: d.amount.toString(),
        block: String(d.blockNumber),
        credited: !d.parked,
      }
      await watcherRepo.audit(tx, 'reorg.finding', meta, now)
      log.error(
        { event: 'reorg.finding', ...meta },
        'a deposit was taken back by a chain reorganisation: its value is held until an operator reverses or keeps it (GET /v1/admin/reorgs)',
      )
    }
    return written
  }

  async list(q: { status?: ReorgFindingStatus | undefined; page: number; limit: number }) {
    const { total, rows } = await reorgRepo.list(this.deps.db, q)
    return { total, rows: rows.map(view) }
  }

  async get(id: string): Promise<ReorgFinding> {
    const row = await reorgRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('reorg finding')
    return view(row)
  }

  async #open(tx: Tx, id: string): Promise<FindingRow> {
    const row = await reorgRepo.get(tx, id, { forUpdate: true })
    if (!row) throw errors.notFound('reorg finding')
    if (row.status !== 'open') throw errors.named('FINDING_RESOLVED', `This finding is ${row.status} already`)
    return row
  }

  /**
   * Takes the credit back: the hold posted to the account the credit came from, then what the
   * wallet holds now (up to the shortfall), the rest booked to the platform's loss account; the
   * owner notified. `within` runs in the same transaction (the operator's audit row).
   */
  async reverse(
    id: string,
    by: string,
    reason: string,
    within?: (tx: Tx, finding: ReorgFinding) => Promise<void>,
  ): Promise<ReorgFinding> {
    const { db, ledger, clock, events } = this.deps
    return db.transaction().execute(async (tx) => {
      const f = await this.#open(tx, id)
      const source = await this.#source(tx, f)
      const coin = f.coin
      let reversalTransferId: string | null = null
      if (f.holdId) {
        const posted = await ledger.post(tx, {
          hold: f.holdId,
          to: [{ account: source, amount: BigInt(f.held) }],
          key: `reorg:${f.id}:reverse`,
          kind: 'reorg.reverse',
          description: `Deposit ${f.txHash} reversed after a chain reorganisation`,
        })
        reversalTransferId = posted.transferId
      }
      // What the wallet received since (a later deposit) covers the shortfall first.
      let shortfall = BigInt(f.shortfall)
      let recovered = BigInt(f.held)
      if (shortfall > 0n && f.accountId) {
        const account = await ledger.account(tx, f.accountId, { forUpdate: true })
        const more = min(shortfall, account && account.available > 0n ? account.available : 0n)
        if (more > 0n) {
          const t = await ledger.transfer(tx, {
            key: `reorg:${f.id}:recover`,
            coin,
            legs: [
              { account: f.accountId, amount: -more },
              { account: source, amount: more },
            ],
            kind: 'reorg.reverse',
            description: `Deposit ${f.txHash} reversed: the part spent before, from the wallet's later funds`,
          })
          reversalTransferId ??= t.id
          shortfall -= more
          recovered += more
        }
      }
      let lossTransferId: string | null = null
      if (shortfall > 0n) {
        const loss = await ledger.ensureAccount(tx, 'platform_loss', PLATFORM_LOSS_OWNER, coin)
        const t = await ledger.transfer(tx, {
          key: `reorg:${f.id}:loss`,
          coin,
          legs: [
            { account: loss, amount: -shortfall },
            { account: source, amount: shortfall },
          ],
          kind: 'reorg.loss',
          description: `Deposit ${f.txHash} reversed: the part already spent is the platform's loss`,
        })
        lossTransferId = t.id
      }
      const now = clock.now()
      await reorgRepo.resolve(tx, f.id, {
        status: 'reversed',
        by,
        reason,
        at: now,
        reversalTransferId,
        lossTransferId,
        shortfall,
      })
      const record = await reorgRepo.transactionOf(tx, f)
      if (record)
        await this.deps.transactions.update(tx, record, {
          status: 'failed',
          description: `Deposit reversed: the blockchain took transaction ${f.txHash} back (a chain reorganisation)`,
        })
      const decimals = this.deps.chain.coin(coin).decimals
      if (f.ownerKind === 'user')
        await events.emit(tx, {
          type: 'deposit.reversed',
          actorId: null,
          audience: [f.ownerId],
          data: {
            findingId: f.id,
            coin,
            amount: formatUnits(BigInt(f.amount), decimals),
            recovered: formatUnits(recovered, decimals),
            txHash: f.txHash,
          },
          key: `reorg:${f.id}:reversed`,
        })
      const done = view((await reorgRepo.get(tx, f.id))!)
      await watcherRepo.audit(
        tx,
        'reorg.reversed',
        { findingId: f.id, by, reason, recovered: recovered.toString(), loss: shortfall.toString() },
        now,
      )
      await within?.(tx, done)
      return done
    })
  }

  /**
   * Keeps the credit of a deposit that is on the canonical chain again with its confirmations
   * (checked on chain first, outside the transaction; 409 DEPOSIT_NOT_CANONICAL when it is not): the hold is
   * voided.
   */
  async keep(
    id: string,
    by: string,
    reason: string,
    within?: (tx: Tx, finding: ReorgFinding) => Promise<void>,
  ): Promise<ReorgFinding> {
    const { db, ledger, clock, chain } = this.deps
    const first = await reorgRepo.get(db, id)
    if (!first) throw errors.notFound('reorg finding')
    if (first.status !== 'open')
      throw errors.named('FINDING_RESOLVED', `This finding is ${first.status} already`)
    // Mined again above the watcher's cursor, a token transfer's log usually has another index:
    // the watcher then credits it as a movement of its own, and keeping this credit too would
    // count it twice.
    if (await reorgRepo.recordedAgain(db, first))
      throw errors.named(
        'DEPOSIT_RECORDED_AGAIN',
        'The deposit was mined again and the watcher recorded it anew (credited, or parked while the coin is halted): reverse this finding instead',
      )
    const where = await depositState(
      chain,
      { ...first, amount: BigInt(first.amount) },
      await this.deps.confirmedHead(),
    )
    if (where.state !== 'confirmed')
      throw errors.named(
        'DEPOSIT_NOT_CANONICAL',
        where.state === 'unconfirmed'
          ? `The deposit is mined again (block ${where.blockNumber}) but not confirmed yet; keep it once it is`
          : 'The deposit is not on the canonical chain: reverse it, or wait until it is mined again',
      )
    return db.transaction().execute(async (tx) => {
      const f = await this.#open(tx, id)
      if (f.holdId) await ledger.void(tx, { hold: f.holdId, key: `reorg:${f.id}:keep` })
      const now = clock.now()
      await reorgRepo.resolve(tx, f.id, { status: 'kept', by, reason, at: now })
      const done = view((await reorgRepo.get(tx, f.id))!)
      await watcherRepo.audit(
        tx,
        'reorg.kept',
        { findingId: f.id, by, reason, block: String(where.blockNumber), blockHash: where.blockHash },
        now,
      )
      await within?.(tx, done)
      return done
    })
  }

  /** The account the credit came from (the debited leg of the credit's transfer). */
  async #source(tx: Tx, f: FindingRow): Promise<string> {
    if (!f.creditTransferId) throw new Error(`reorg finding ${f.id} has no credit transfer`)
    const entries = await this.deps.ledger.entries(tx, f.creditTransferId)
    const debit = entries.find((e) => BigInt(e.amount) < 0n)
    if (!debit) throw new Error(`the credit transfer ${f.creditTransferId} debits no account`)
    return debit.accountId
  }
}
