// What an operator may do with an outgoing transfer, through settlement's own paths: look at
// transfers by state (with their attempts, signed transactions and reported events), run one now
// (a retry of a failing transfer without waiting for its backoff), replace a pending transaction
// now with higher fees (same nonce), and cancel a transfer that was never signed: it settles as
// failed exactly like a transfer whose retries ran out, so the caller is refunded once, by the
// void of its funding hold and the report job of that settlement. Nothing that may still be mined is cancelled.
import type { Tx } from '../../../db/index.ts'
import { AppError, errors } from '../../../http/errors.ts'
import { scheduleRun } from './enqueue.ts'
import { settleFailure } from './outcome.ts'
import { replaceIfStuck } from './replace.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { operatorRepo, type TransferFilter } from './repo-operator.ts'
import { isFinal, type SenderContext } from './types.ts'

/** Which operator actions a transfer allows now. */
export function actionsOf(row: Pick<OutgoingRow, 'status'>) {
  return {
    /** run now: any transfer not settled yet */
    retry: !isFinal(row.status),
    /** replace the signed transaction now, with higher fees at the same nonce */
    replace: row.status === 'signed' || row.status === 'sent',
    /** cancel and refund: only while nothing was signed */
    cancel: row.status === 'queued',
  }
}

/** Runs `then` (the operator's audit row) in the transaction of the action. */
type Then = (tx: Tx, row: OutgoingRow) => Promise<void>

export class OutgoingOperations {
  constructor(private readonly s: SenderContext) {}

  list(f: TransferFilter) {
    return operatorRepo.list(this.s.deps.db, f)
  }

  /** A transfer with its signed transactions, the postings booked with it (history: transfers
   * settled before callers reserved their extras with holds of their own) and the events reported
   * to its caller. */
  async detail(id: string) {
    const { db } = this.s.deps
    const row = await this.s.load(db, id)
    if (!row) return undefined
    const [transactions, postings, events] = await Promise.all([
      outgoingRepo.transactions(db, id),
      operatorRepo.postings(db, id),
      operatorRepo.events(db, id),
    ])
    return { row, transactions, postings, events }
  }

  /** Runs a transfer that is not settled yet now (its backoff is skipped). */
  async retry(id: string, then: Then): Promise<OutgoingRow> {
    const { db, clock } = this.s.deps
    return db.transaction().execute(async (tx) => {
      const row = await this.#locked(tx, id)
      if (isFinal(row.status))
        throw errors.named(
          'TRANSFER_NOT_OPEN',
          `The transfer is ${row.status} already; only an open transfer can be retried`,
        )
      // Nothing is signed in a halted coin: a run now would only wait again, so say why instead.
      if (await this.s.deps.halts.isHalted(row.coin, tx))
        throw new AppError(
          'COIN_HALTED',
          `The coin ${row.coin} is halted: resume it before running its transfers`,
          {
            coin: row.coin,
          },
        )
      const seq = row.wakeSeq + 1
      const now = clock.now()
      await outgoingRepo.setWakeSeq(tx, id, seq, now)
      await scheduleRun(this.s, tx, row, seq, now)
      await then(tx, row)
      this.s.deps.log.info(
        { transferId: id, purpose: row.purpose, referenceId: row.referenceId, status: row.status },
        'outgoing transfer run now by an operator',
      )
      return row
    })
  }

  /**
   * Replaces the transfer's pending transaction now: the same nonce, fees at least 12.5 % higher
   * (and at least the current estimate); the replacement is stored before the next run
   * broadcasts it, and whichever of its transactions is mined settles the transfer.
   */
  async replace(id: string, then: Then): Promise<{ txHash: string }> {
    const { db, chain } = this.s.deps
    const row = await this.s.load(db, id)
    if (!row) throw errors.notFound('transfer')
    if (row.status !== 'signed' && row.status !== 'sent')
      throw errors.named(
        'TRANSFER_NOT_OPEN',
        isFinal(row.status)
          ? `The transfer is ${row.status} already`
          : 'The transfer has no signed transaction to replace yet; retry it instead',
      )
    if (await this.s.deps.halts.isHalted(row.coin))
      throw errors.named(
        'HALTED_COIN_REFUSED',
        `The coin ${row.coin} is halted: nothing is signed in it until it is resumed`,
      )
    if ((await chain.getNonce(row.fromAddress, 'latest')) > Number(row.nonce))
      throw errors.named(
        'TRANSFER_NOT_STUCK',
        'The nonce of this transaction is used already: it is being settled, not stuck',
      )
    let txHash = ''
    const result = await replaceIfStuck(this.s, row, {
      now: true,
      inTransaction: async (tx, hash) => {
        txHash = hash
        const locked = (await this.s.load(tx, id))!
        const seq = locked.wakeSeq + 1
        const now = this.s.deps.clock.now()
        await outgoingRepo.setWakeSeq(tx, id, seq, now)
        // The next run broadcasts the replacement (the stored current transaction).
        await scheduleRun(this.s, tx, locked, seq, now)
        // The transfer as it was before the replacement (its replaced transaction).
        await then(tx, { ...locked, txHash: row.txHash, raw: row.raw })
      },
    })
    switch (result) {
      case 'replaced':
        return { txHash }
      case 'not-stuck':
        throw errors.named(
          'TRANSFER_NOT_STUCK',
          'An earlier transaction of the sending address is pending: replace that one first',
        )
      case 'exhausted':
        throw errors.named(
          'TRANSFER_REPLACE_LIMIT',
          `The transfer was replaced ${this.s.options.maxReplacements} times already`,
        )
      case 'wait':
        throw errors.named(
          'TRANSFER_AWAITS_GAS',
          'The higher fees need more gas at the sending address: a top-up was requested',
        )
      case 'capped':
        throw errors.named(
          'TRANSFER_REPLACE_LIMIT',
          `The replacement would pay more per gas than the maximum of ${row.coin}: it waits for the network fee to fall`,
        )
      default:
        throw errors.named('TRANSFER_NOT_OPEN', 'The transfer was replaced or settled meanwhile')
    }
  }

  /**
   * Cancels a transfer that was never signed: it settles as failed (`CANCELLED`, with the message
   * meant for the customer, if any) under its row
   * lock, with its gas reservation and its funding hold voided, and the caller
   * learns it from the `transfer.failed` report job, once. A signed transfer may still be mined
   * and is refused.
   */
  async cancel(id: string, customerMessage: string | undefined, then: Then): Promise<OutgoingRow> {
    const { db } = this.s.deps
    return db.transaction().execute(async (tx) => {
      const row = await this.#locked(tx, id)
      if (isFinal(row.status))
        throw errors.named('TRANSFER_NOT_OPEN', `The transfer is ${row.status} already`)
      if (row.status !== 'queued')
        throw errors.named(
          'TRANSFER_ALREADY_SIGNED',
          'The transfer is signed and may still be mined: it cannot be cancelled (replace it, or wait for the chain)',
        )
      // What the caller reports to its customer (a withdrawal's mail and record): never the
      // operator's own note, which stays in the audit log.
      const message = customerMessage ? `cancelled: ${customerMessage}` : 'cancelled by the platform'
      await settleFailure(
        this.s,
        tx,
        { ...row, errors: [...(row.errors ?? []), message] },
        { code: 'CANCELLED', message, reason: 'failed', receipt: null },
      )
      await then(tx, row)
      return (await this.s.load(tx, id))!
    })
  }

  async #locked(tx: Tx, id: string) {
    const row = await this.s.load(tx, id, true)
    if (!row) throw errors.notFound('transfer')
    return row
  }
}
