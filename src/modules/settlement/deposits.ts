// "Where is my deposit?": what the chain and the watcher know of one transaction (who received
// value at a custodial address, how many confirmations it has, whether it was credited, parked for
// a halted coin, still confirming, replaced by a reorganisation, or passed by the watcher without
// a credit), and an operator's request to read a block range of one address again (the rescan job,
// which credits what the watcher missed exactly as the watcher would).

import type { Hash } from 'viem'
import type { Database, Executor } from '../../db/index.ts'
import type { ChainAdapter, Confirmations } from '../../platform/chain/types.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { RESCAN_JOB } from './reconcile/rescan.ts'
import { watcherRepo } from './watcher/repo.ts'

/** What became of value sent to a custodial address. */
export type DepositState = 'credited' | 'parked' | 'confirming' | 'replaced' | 'missed'

export interface DepositFinding {
  address: string
  /** the custodial address's owner: `user` (ownerId is the user id), `escrow`, `platform` … */
  ownerKind: string
  ownerId: string
  coin: string
  /** base units */
  amount: string
  logIndex: number | null
  blockNumber: string
  state: DepositState
  /** why, in words an operator can repeat to the customer */
  explanation: string
  transferId: string | null
  creditedAt: Date | null
}

export interface DepositLookup {
  txHash: string
  /** `unknown`: the chain has no mined transaction with this hash; `failed`: it reverted;
   * `not_custodial`: nothing in it reached a platform address; `found`: see `deposits` */
  outcome: 'unknown' | 'failed' | 'not_custodial' | 'found'
  explanation: string
  blockNumber: string | null
  from: string | null
  to: string | null
  confirmations: number
  /** what a deposit needs before it is credited: a number of blocks, or `finalized` */
  requiredConfirmations: string
  /** the newest block the watcher has read */
  watcherBlock: string | null
  deposits: DepositFinding[]
}

/** The widest block range one operator rescan reads (native value is read block by block). */
export const MAX_RESCAN_BLOCKS = 5_000

export class DepositDesk {
  constructor(
    private readonly deps: {
      database: Database
      chain: ChainAdapter
      jobs: JobQueue
      /** blocks before a deposit counts, or the chain's finalized tag (CONFIRMATIONS) */
      confirmations: Confirmations
    },
  ) {}

  async lookup(txHash: string): Promise<DepositLookup> {
    const { chain, database } = this.deps
    const db = database.db
    const chainKey = String(chain.chainId)
    const hash = txHash.toLowerCase() as Hash
    const [receipt, head, confirmedHead, cursor, recorded] = await Promise.all([
      chain.getReceipt(hash),
      chain.blockNumber(),
      chain.confirmedHead(this.deps.confirmations),
      watcherRepo.cursor(db, chainKey),
      watcherRepo.depositsOfTx(db, chainKey, hash),
    ])
    const required = String(this.deps.confirmations)
    const base = {
      txHash: hash,
      requiredConfirmations: required,
      watcherBlock: cursor ? cursor.number.toString() : null,
    }
    if (!receipt && recorded.length === 0)
      return {
        ...base,
        outcome: 'unknown',
        explanation:
          'The chain has no mined transaction with this hash: check the hash and the network, or it is still waiting to be mined',
        blockNumber: null,
        from: null,
        to: null,
        confirmations: 0,
        deposits: [],
      }
    const blockNumber = receipt?.blockNumber ?? BigInt(recorded[0]!.blockNumber)
    const confirmations = receipt ? Number(head - blockNumber + 1n) : 0
    const common = {
      ...base,
      blockNumber: blockNumber.toString(),
      from: receipt?.from.toLowerCase() ?? null,
      to: receipt?.to?.toLowerCase() ?? null,
      confirmations: Math.max(confirmations, 0),
    }
    if (receipt?.status === 'reverted')
      return {
        ...common,
        outcome: 'failed',
        explanation: 'The transaction failed on chain (reverted): no value was sent; the sender keeps it',
        deposits: [],
      }

    const findings: DepositFinding[] = []
    const seen = new Set<string>()
    for (const r of recorded) {
      seen.add(`${r.address}:${r.coin}:${r.logIndex}`)
      const replaced = !receipt || receipt.blockHash.toLowerCase() !== r.blockHash.toLowerCase()
      const parked = r.held !== null
      findings.push({
        address: r.address,
        ownerKind: r.ownerKind,
        ownerId: r.ownerId,
        coin: r.coin,
        amount: String(r.amount),
        logIndex: r.logIndex >= 0 ? r.logIndex : null,
        blockNumber: String(r.blockNumber),
        state: replaced ? 'replaced' : parked ? 'parked' : 'credited',
        explanation: replaced
          ? `Recorded in block ${r.blockNumber}, which a chain reorganisation replaced${receipt ? ` (the transaction is now in block ${receipt.blockNumber})` : ' (the transaction is not on the chain now)'}: see the reorganisation findings`
          : parked
            ? `Seen with ${common.confirmations} confirmations and recorded, but ${r.coin.toUpperCase()} is halted: credited when an operator resumes the coin`
            : `Credited on ${r.createdAt.toISOString()}`,
        transferId: r.transferId,
        creditedAt: parked || replaced ? null : r.createdAt,
      })
    }

    // What the chain says reached a custodial address that the watcher has not recorded.
    if (receipt) {
      const block = await chain.getBlock(receipt.blockNumber)
      const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
      const tokens = (await chain.tokenTransfers(receipt.blockNumber, receipt.blockNumber)).filter(
        (t) => t.hash.toLowerCase() === hash,
      )
      const tx = block?.transactions.find((t) => t.hash.toLowerCase() === hash)
      const arrivals = [
        ...tokens.map((t) => ({
          address: t.to.toLowerCase(),
          coin: t.coin,
          amount: t.amount,
          logIndex: t.logIndex,
        })),
        ...(tx?.to && tx.value > 0n && nativeCoin
          ? [{ address: tx.to.toLowerCase(), coin: nativeCoin, amount: tx.value, logIndex: -1 }]
          : []),
      ]
      const custodial = await watcherRepo.custodialByAddresses(
        db,
        arrivals.map((a) => a.address),
      )
      const passed = cursor !== null && cursor.number >= receipt.blockNumber
      for (const a of arrivals) {
        const owner = custodial.get(a.address)
        if (!owner) continue
        if ([...seen].some((k) => k.startsWith(`${a.address}:${a.coin}:`))) continue
        const confirming = receipt.blockNumber > confirmedHead || !passed
        findings.push({
          address: a.address,
          ownerKind: owner.ownerKind,
          ownerId: owner.ownerId,
          coin: a.coin,
          amount: a.amount.toString(),
          logIndex: a.logIndex >= 0 ? a.logIndex : null,
          blockNumber: receipt.blockNumber.toString(),
          state: confirming ? 'confirming' : 'missed',
          explanation: confirming
            ? `Seen in block ${receipt.blockNumber}: ${Math.max(confirmations, 0)} of ${required} confirmations; credited once the watcher reads past it (it has read up to block ${cursor?.number ?? 'none'})`
            : `The watcher read past block ${receipt.blockNumber} without crediting it: re-scan the block range of this address`,
          transferId: null,
          creditedAt: null,
        })
      }
    }
    if (findings.length === 0)
      return {
        ...common,
        outcome: 'not_custodial',
        explanation:
          'Nothing in this transaction reached a platform address: the customer may have sent to another address or network',
        deposits: [],
      }
    return {
      ...common,
      outcome: 'found',
      explanation: findings.map((f) => f.explanation).join('; '),
      deposits: findings,
    }
  }

  /** Whether `address` is a custodial address of the platform (any case). */
  async isCustodial(address: string): Promise<boolean> {
    const found = await watcherRepo.custodialByAddresses(this.deps.database.db, [address])
    return found.size > 0
  }

  /** The newest block the watcher has read, or null before its first run. */
  async watcherBlock(): Promise<bigint | null> {
    const cursor = await watcherRepo.cursor(this.deps.database.db, String(this.deps.chain.chainId))
    return cursor?.number ?? null
  }

  /**
   * Queues a read of `address`'s `coin` deposits in blocks `fromBlock`..`toBlock` (in the caller's
   * transaction, so the request commits with its audit row); the job credits what was missed and
   * has reconciliation check the address again. Answers the job's id.
   */
  requestRescan(
    ex: Executor,
    r: { address: string; coin: string; fromBlock: bigint; toBlock: bigint; requestId: string },
  ): Promise<string> {
    return this.deps.jobs.enqueue(ex, RESCAN_JOB, {
      chainId: this.deps.chain.chainId,
      runId: `operator:${r.requestId}`,
      targets: [
        {
          address: r.address.toLowerCase(),
          coin: r.coin,
          drift: '0',
          fromBlock: r.fromBlock.toString(),
          toBlock: r.toBlock.toString(),
        },
      ],
    })
  }
}
