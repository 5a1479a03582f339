// The deposit watcher: follows each chain from a stored cursor, a block range at a time, and turns
// what moved at custodial addresses into ledger transfers and transaction records, each exactly
// once (chain_events is unique per chain, transaction hash, log index, kind and address; the
// ledger key is derived from the same fields).
//
// - Incoming native value and ERC-20 Transfer logs to any custodial address (user, escrow,
//   treasury) are credited after CONFIRMATIONS blocks, whoever sent them.
// - Outgoing value and gas from a custodial address in a transaction the platform did not sign
//   (not in chain_outgoing) is debited as an external withdrawal (and fee): after a key export
//   that is the user moving funds themselves; otherwise it is logged as an incident.
// - One leader per chain: a session advisory lock on a dedicated PostgreSQL connection; the
//   embedded database belongs to one process, which serialises its scans in memory. The cursor
//   row is also compared-and-set, so an overlapping scan can never apply a range twice.
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Database, Tx } from '../../db/index.ts'
import type { ChainAdapter, ChainBlock } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { CustodialKey, KeyStore } from '../settlement/keys.ts'
import type { TransactionService } from '../transactions/service.ts'
import type { Ledger, LedgerAccountKind } from './ledger.ts'
import { formatExact } from './money.ts'

/** A credited arrival of value at a custodial address (what deposit hooks receive). */
export interface Deposit {
  chainId: number
  txHash: string
  /** -1 for native value */
  logIndex: number
  coin: string
  amount: bigint
  from: string
  /** the custodial address (lower case) */
  to: string
  ownerKind: CustodialKey['ownerKind']
  ownerId: string
  blockNumber: bigint
  /** the ledger transfer that credited it */
  transferId: string
  /** the credited ledger account */
  accountId: string
  /** the user's deposit transaction record, for user addresses */
  transactionId: string | null
}

/** Runs inside the transaction that credits the deposit: throw to retry the whole range later. */
export type DepositHook = (tx: Tx, deposit: Deposit) => Promise<void>

export interface ScanResult {
  /** false when another process holds the chain's leadership */
  leader: boolean
  /** last processed block after the scan */
  cursor: bigint | null
  /** new events applied */
  applied: number
}

type EventKind = 'deposit' | 'withdrawal' | 'fee'

interface ChainMovement {
  kind: EventKind
  txHash: string
  logIndex: number
  coin: string
  amount: bigint
  from: string
  to: string | null
  /** the custodial address concerned (lower case) */
  address: string
  key: CustodialKey
  blockNumber: bigint
  blockHash: string
  order: [bigint, number, number, number]
  /** the platform signed this transaction (its sender records it for the user) */
  platform: boolean
  /** set for value the platform sent and asked to be credited to a specific account */
  creditAccountId: string | null
}

const LOCK_NAMESPACE = 0x57414c4c // "WALL"
const KIND_OF_OWNER: Record<CustodialKey['ownerKind'], LedgerAccountKind> = {
  user: 'user',
  escrow: 'escrow',
  treasury: 'treasury',
}

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

export class DepositWatcher {
  readonly hooks: DepositHook[] = []
  /** blocks per pass: bounds one database transaction */
  batchBlocks = 200
  #chain: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly deps: {
      database: Database
      chain: ChainAdapter
      clock: Clock
      log: Logger
      keys: KeyStore
      ledger: Ledger
      transactions: TransactionService
      confirmations: number
    },
  ) {}

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  /** The last processed block, or null before the first scan. */
  async cursor(): Promise<{ number: bigint; hash: string } | null> {
    const row = await this.deps.database.db
      .selectFrom('chainCursors')
      .select(['blockNumber', 'blockHash'])
      .where('chainId', '=', this.chainKey)
      .executeTakeFirst()
    return row ? { number: BigInt(row.blockNumber), hash: row.blockHash } : null
  }

  /**
   * Starts following the chain at its current confirmed head, unless a cursor exists. Called at
   * start-up so that a fresh installation does not read the chain's whole history.
   */
  async initCursor(): Promise<void> {
    if (await this.cursor()) return
    const safe = await this.#safeHead()
    const block = await this.deps.chain.getBlock(safe)
    if (!block) return
    await this.deps.database.db
      .insertInto('chainCursors')
      .values({
        chainId: this.chainKey,
        blockNumber: Number(block.number),
        blockHash: block.hash,
        updatedAt: this.deps.clock.now(),
      })
      .onConflict((oc) => oc.column('chainId').doNothing())
      .execute()
  }

  /**
   * Scans until the confirmed head (or `maxBlocks` blocks) and applies what it finds. Calls are
   * serialised in this process; a caller waits for a running scan and then scans again.
   */
  scanNow(opts: { maxBlocks?: number } = {}): Promise<ScanResult> {
    const run = this.#chain.then(() => this.#leading(() => this.#scan(opts.maxBlocks)))
    this.#chain = run.catch(() => {})
    return run
  }

  async #leading(fn: () => Promise<Omit<ScanResult, 'leader'>>): Promise<ScanResult> {
    const { database, chain } = this.deps
    if (database.kind === 'pglite') return { leader: true, ...(await fn()) }
    return database.db.connection().execute(async (conn) => {
      const got = await sql<{
        ok: boolean
      }>`select pg_try_advisory_lock(${LOCK_NAMESPACE}, ${chain.chainId}) as ok`.execute(conn)
      if (!got.rows[0]?.ok) return { leader: false, cursor: null, applied: 0 }
      try {
        return { leader: true, ...(await fn()) }
      } finally {
        await sql`select pg_advisory_unlock(${LOCK_NAMESPACE}, ${chain.chainId})`.execute(conn)
      }
    })
  }

  async #safeHead(): Promise<bigint> {
    const head = await this.deps.chain.blockNumber()
    const behind = BigInt(Math.max(this.deps.confirmations, 1) - 1)
    return head > behind ? head - behind : 0n
  }

  async #scan(maxBlocks?: number): Promise<Omit<ScanResult, 'leader'>> {
    await this.initCursor()
    let applied = 0
    let budget = maxBlocks === undefined ? Number.POSITIVE_INFINITY : maxBlocks
    for (;;) {
      const cursor = await this.cursor()
      if (!cursor) return { cursor: null, applied }
      await this.#checkReorg(cursor)
      const safe = await this.#safeHead()
      if (safe <= cursor.number || budget <= 0) return { cursor: cursor.number, applied }
      const span = BigInt(Math.min(this.batchBlocks, budget))
      const from = cursor.number + 1n
      const to = safe < from + span - 1n ? safe : from + span - 1n
      applied += await this.#range(cursor.number, from, to)
      budget -= Number(to - from + 1n)
    }
  }

  /** The block at the cursor must still be the one processed; a different hash is a reorg deeper
   * than the confirmations, which the ledger cannot undo by itself. */
  async #checkReorg(cursor: { number: bigint; hash: string }) {
    const block = await this.deps.chain.getBlock(cursor.number)
    if (!block || block.hash.toLowerCase() === cursor.hash.toLowerCase()) return
    this.deps.log.error(
      {
        chainId: this.deps.chain.chainId,
        block: cursor.number.toString(),
        processedHash: cursor.hash,
        chainHash: block.hash,
      },
      'CHAIN REORG DEEPER THAN CONFIRMATIONS: a processed block was replaced; deposits credited from it may no longer exist on chain. Raise CONFIRMATIONS and reconcile the ledger by hand.',
    )
    const db = this.deps.database.db
    await db
      .insertInto('auditLog')
      .values({
        id: newId(),
        userId: null,
        action: 'chain.reorg',
        ip: null,
        meta: json({
          chainId: this.deps.chain.chainId,
          block: cursor.number,
          processedHash: cursor.hash,
          chainHash: block.hash,
        }),
      })
      .execute()
    // Follow the chain as it now is from here on.
    await db
      .updateTable('chainCursors')
      .set({ blockHash: block.hash, updatedAt: this.deps.clock.now() })
      .where('chainId', '=', this.chainKey)
      .where('blockNumber', '=', Number(cursor.number))
      .execute()
  }

  /** Reads blocks from..to from the chain (no database transaction open), then applies them. */
  async #range(cursorAt: bigint, from: bigint, to: bigint): Promise<number> {
    const { chain, keys, database } = this.deps
    const db = database.db
    const addresses = await keys.allAddresses(db)
    const blocks: ChainBlock[] = []
    for (let n = from; n <= to; n++) {
      const block = await chain.getBlock(n)
      if (!block) throw new Error(`block ${n} is not available yet`)
      blocks.push(block)
    }
    const last = blocks[blocks.length - 1]!
    const movements: ChainMovement[] = []
    if (addresses.length > 0) movements.push(...(await this.#movements(addresses, blocks, from, to)))
    return this.#apply(cursorAt, last, movements)
  }

  async #movements(addresses: string[], blocks: ChainBlock[], from: bigint, to: bigint) {
    const { chain, keys, database } = this.deps
    const db = database.db
    const mine = new Set(addresses)
    const txIndex = new Map<string, number>()
    const blockHash = new Map<bigint, string>()
    for (const b of blocks) {
      blockHash.set(b.number, b.hash)
      b.transactions.forEach((t, i) => {
        txIndex.set(t.hash.toLowerCase(), i)
      })
    }
    const [nativeIn, tokenIn, nativeOut, tokenOut] = await Promise.all([
      chain.nativeTransfers(from, to, { to: addresses }),
      chain.tokenTransfers(from, to, { to: addresses }),
      chain.nativeTransfers(from, to, { from: addresses }),
      chain.tokenTransfers(from, to, { from: addresses }),
    ])
    const sent = blocks.flatMap((b) => b.transactions.filter((t) => mine.has(t.from.toLowerCase())))
    const hashes = [
      ...new Set([...sent.map((t) => t.hash), ...nativeIn.map((t) => t.hash), ...tokenIn.map((t) => t.hash)]),
    ].map((h) => h.toLowerCase())
    const platformMade = new Map<string, string | null>()
    if (hashes.length > 0) {
      const rows = await db
        .selectFrom('chainOutgoing')
        .select(['txHash', 'creditAccountId'])
        .where('chainId', '=', this.chainKey)
        .where('txHash', 'in', hashes)
        .execute()
      for (const r of rows) platformMade.set(r.txHash, r.creditAccountId)
    }
    const involved = new Set<string>()
    for (const t of [...nativeIn, ...tokenIn]) involved.add(t.to.toLowerCase())
    for (const t of [...nativeOut, ...tokenOut, ...sent]) involved.add(t.from.toLowerCase())
    const keyOf = new Map((await keys.byAddresses(db, [...involved])).map((k) => [k.address, k]))

    const out: ChainMovement[] = []
    const push = (
      kind: EventKind,
      t: { hash: string; from: string; to: string | null; amount: bigint; blockNumber: bigint; coin: string },
      logIndex: number,
      address: string,
    ) => {
      const key = keyOf.get(address)
      if (!key || t.amount <= 0n) return
      const hash = t.hash.toLowerCase()
      const phase = kind === 'fee' ? 0 : kind === 'withdrawal' ? 1 : 2
      out.push({
        kind,
        txHash: hash,
        logIndex,
        coin: t.coin,
        amount: t.amount,
        from: t.from.toLowerCase(),
        to: t.to?.toLowerCase() ?? null,
        address,
        key,
        blockNumber: t.blockNumber,
        blockHash: blockHash.get(t.blockNumber) ?? '',
        order: [t.blockNumber, txIndex.get(hash) ?? 0, kind === 'fee' ? -2 : logIndex, phase],
        platform: platformMade.has(hash),
        creditAccountId: kind === 'deposit' ? (platformMade.get(hash) ?? null) : null,
      })
    }
    for (const t of nativeIn) push('deposit', t, -1, t.to.toLowerCase())
    for (const t of tokenIn) push('deposit', t, t.logIndex, t.to.toLowerCase())
    for (const t of nativeOut)
      if (!platformMade.has(t.hash.toLowerCase())) push('withdrawal', t, -1, t.from.toLowerCase())
    for (const t of tokenOut)
      if (!platformMade.has(t.hash.toLowerCase())) push('withdrawal', t, t.logIndex, t.from.toLowerCase())
    // Gas of every transaction a custodial key signed without the platform (failed ones too).
    const native = chain.coins.find((c) => !c.isToken)
    for (const t of sent) {
      if (platformMade.has(t.hash.toLowerCase()) || !native) continue
      const receipt = await chain.getReceipt(t.hash)
      if (!receipt) continue
      push(
        'fee',
        {
          hash: t.hash,
          from: t.from,
          to: t.to,
          amount: receipt.fee,
          blockNumber: t.blockNumber,
          coin: native.reference,
        },
        -1,
        t.from.toLowerCase(),
      )
    }
    out.sort((a, b) => {
      for (let i = 0; i < 4; i++) {
        const x = a.order[i]!
        const y = b.order[i]!
        if (x !== y) return x < y ? -1 : 1
      }
      return 0
    })
    return out
  }

  /** Full receipt (hash, block, gas, logs) as JSON text for `responseData`. */
  async #receiptText(hash: string): Promise<string> {
    try {
      const r = await this.deps.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` })
      return json({
        transactionHash: r.transactionHash,
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
        from: r.from,
        to: r.to,
        status: r.status,
        gasUsed: r.gasUsed,
        effectiveGasPrice: r.effectiveGasPrice,
        logs: r.logs.map((l) => ({
          address: l.address,
          topics: l.topics,
          data: l.data,
          logIndex: l.logIndex,
        })),
      })
    } catch {
      return json({ transactionHash: hash })
    }
  }

  async #apply(cursorAt: bigint, last: ChainBlock, movements: ChainMovement[]): Promise<number> {
    const { database, ledger, transactions, chain, clock, log } = this.deps
    // Everything that needs the network happens before the database transaction opens.
    const receipts = new Map<string, string>()
    const rates = new Map<string, string>()
    for (const m of movements) {
      if (m.key.ownerKind === 'user' && !m.platform) {
        if (!receipts.has(m.txHash)) receipts.set(m.txHash, await this.#receiptText(m.txHash))
        if (!rates.has(m.coin)) rates.set(m.coin, await transactions.rateOf(m.coin))
      }
    }
    await transactions.chainRecordId()
    return database.db.transaction().execute(async (tx) => {
      const cursor = await tx
        .selectFrom('chainCursors')
        .select(['blockNumber'])
        .where('chainId', '=', this.chainKey)
        .forUpdate()
        .executeTakeFirst()
      // Someone else applied this range meanwhile: nothing to do.
      if (!cursor || BigInt(cursor.blockNumber) !== cursorAt) return 0
      let applied = 0
      for (const m of movements) {
        const inserted = await tx
          .insertInto('chainEvents')
          .values({
            chainId: this.chainKey,
            txHash: m.txHash,
            logIndex: m.logIndex,
            kind: m.kind,
            address: m.address,
            ownerKind: m.key.ownerKind,
            ownerId: m.key.ownerId,
            coin: m.coin,
            amount: m.amount.toString(),
            blockNumber: Number(m.blockNumber),
            blockHash: m.blockHash,
            createdAt: clock.now(),
          })
          .onConflict((oc) => oc.doNothing())
          .returning('txHash')
          .executeTakeFirst()
        if (!inserted) continue
        applied++
        const clearing = await ledger.ensureAccount(tx, 'chain', this.chainKey, m.coin)
        // A registered credit account of another coin is a caller's mistake: credit the owner.
        const credit = m.creditAccountId ? await ledger.account(tx, m.creditAccountId) : undefined
        if (m.creditAccountId && credit?.coin !== m.coin)
          log.error(
            { txHash: m.txHash, creditAccountId: m.creditAccountId },
            'credit account of another coin ignored',
          )
        const owner =
          (credit?.coin === m.coin ? credit.id : undefined) ??
          (await ledger.ensureAccount(tx, KIND_OF_OWNER[m.key.ownerKind], m.key.ownerId, m.coin))
        const ledgerKey = `chain:${this.chainKey}:${m.txHash}:${m.logIndex}:${m.kind}:${m.address}`
        let amount = m.amount
        if (m.kind !== 'deposit') {
          if (!m.key.exportedAt)
            log.error(
              { chainId: chain.chainId, txHash: m.txHash, address: m.address, ownerKind: m.key.ownerKind },
              'value left a custodial address in a transaction the platform did not sign, and its key was never exported',
            )
          const account = await ledger.account(tx, owner, { forUpdate: true })
          const available = account?.balance ?? 0n
          if (available < amount) {
            log.error(
              { txHash: m.txHash, address: m.address, coin: m.coin, onChain: amount, inLedger: available },
              'external withdrawal larger than the ledger balance; debiting what the ledger holds',
            )
            amount = available
          }
        }
        let transferId: string | null = null
        if (amount > 0n) {
          const legs =
            m.kind === 'deposit'
              ? [
                  { account: clearing, amount: -amount },
                  { account: owner, amount },
                ]
              : [
                  { account: owner, amount: -amount },
                  { account: clearing, amount },
                ]
          transferId = (
            await ledger.transfer(tx, { key: ledgerKey, coin: m.coin, legs, kind: `chain.${m.kind}` })
          ).id
        }
        let transactionId: string | null = null
        if (m.key.ownerKind === 'user' && !m.platform) {
          const coin = chain.coin(m.coin)
          const amountText = formatExact(m.amount, coin.decimals)
          const rec = await transactions.record(tx, {
            ownerId: m.key.ownerId,
            coin: m.coin,
            amount: m.amount,
            type: m.kind === 'deposit' ? 'deposit' : 'withdrawal',
            method: 'transfer',
            status: 'completed',
            description:
              m.kind === 'deposit'
                ? `Deposit of ${amountText} ${coin.symbol}`
                : m.kind === 'fee'
                  ? `Network fee of ${amountText} ${coin.symbol} for a transfer signed outside the platform`
                  : `Transfer of ${amountText} ${coin.symbol} signed outside the platform`,
            txInfo: {
              senderAddress: m.from,
              receiverAddress: m.to ?? '',
              asset: coin.symbol,
              amount: amountText,
            },
            isFee: m.kind === 'fee',
            ...(m.kind === 'deposit' ? {} : { isExternal: true }),
            responseData: receipts.get(m.txHash) ?? '',
            transferId,
            txHash: m.txHash,
            rate: rates.get(m.coin) ?? '0',
          })
          transactionId = rec.id
        }
        await tx
          .updateTable('chainEvents')
          .set({ transferId, transactionId })
          .where('chainId', '=', this.chainKey)
          .where('txHash', '=', m.txHash)
          .where('logIndex', '=', m.logIndex)
          .where('kind', '=', m.kind)
          .where('address', '=', m.address)
          .execute()
        if (m.kind === 'deposit' && transferId) {
          const deposit: Deposit = {
            chainId: chain.chainId,
            txHash: m.txHash,
            logIndex: m.logIndex,
            coin: m.coin,
            amount: m.amount,
            from: m.from,
            to: m.address,
            ownerKind: m.key.ownerKind,
            ownerId: m.key.ownerId,
            blockNumber: m.blockNumber,
            transferId,
            accountId: owner,
            transactionId,
          }
          for (const hook of this.hooks) await hook(tx, deposit)
        }
      }
      await tx
        .updateTable('chainCursors')
        .set({ blockNumber: Number(last.number), blockHash: last.hash, updatedAt: clock.now() })
        .where('chainId', '=', this.chainKey)
        .execute()
      return applied
    })
  }
}
