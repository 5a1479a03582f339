// What the chain holds after a restored database's last processed block, read without writing
// anything: the platform's own transactions the database does not know (from custodial addresses
// whose key was never exported, matched by address and nonce against the nonces the database
// gave out), and the deposits to custodial addresses the watcher will credit when it carries on
// from that block. For the restore report; the watcher itself books what it finds as it always does.
import type { Executor } from '../../../db/index.ts'
import type { ChainAdapter, Confirmations } from '../../../platform/chain/types.ts'
import { candidateAddresses, classify, receiptsNeeded } from '../watcher/classify.ts'
import { fetchRange, fetchReceipts, safeHead } from '../watcher/fetch.ts'
import { watcherRepo } from '../watcher/repo.ts'
import { unknownPlatformTransfers } from './detect.ts'
import { findingsRepo } from './repo.ts'

export interface UnknownTransferSeen {
  txHash: string
  block: string
  address: string
  ownerKind: string
  ownerId: string
  /** the transaction's nonce, and the next nonce the database would give the address */
  nonce: number
  databaseNextNonce: number | null
  coin: string
  amount: string
  to: string | null
  gasFee: string
}

export interface DepositSeen {
  txHash: string
  block: string
  address: string
  ownerKind: string
  ownerId: string
  coin: string
  amount: string
  /** sent by one of the platform's own signers: the gas wallet (a lost gas top-up, which the
   * watcher books as the platform's gas at the address) or the treasury (a lost payment, which the
   * watcher credits to the address's owner unless an operator corrects it) */
  fromPlatform: 'gasWallet' | 'treasury' | null
}

export interface ChainAfterBackup {
  /** the database's last processed block (null: the watcher never ran) */
  cursor: { number: string; hash: string } | null
  /** whether the chain still has that block with that hash (false: rewound or reorganised) */
  cursorOnChain: boolean | null
  head: string
  confirmedHead: string
  /** the range read, and whether it stopped short of the confirmed head (`maxBlocks`) */
  scanned: { from: string; to: string; truncated: boolean } | null
  unknownPlatformTransfers: UnknownTransferSeen[]
  deposits: DepositSeen[]
}

export async function chainAfterBackup(
  ex: Executor,
  chain: ChainAdapter,
  opts: { confirmations: Confirmations; maxBlocks?: number; batchBlocks?: number },
): Promise<ChainAfterBackup> {
  const chainId = String(chain.chainId)
  const cursor = await watcherRepo.cursor(ex, chainId)
  const head = await chain.blockNumber()
  const confirmed = await safeHead(chain, opts.confirmations)
  const out: ChainAfterBackup = {
    cursor: cursor ? { number: cursor.number.toString(), hash: cursor.hash } : null,
    cursorOnChain: null,
    head: head.toString(),
    confirmedHead: confirmed.toString(),
    scanned: null,
    unknownPlatformTransfers: [],
    deposits: [],
  }
  if (!cursor) return out
  const atCursor = await chain.getBlock(cursor.number)
  out.cursorOnChain = atCursor !== null && atCursor.hash.toLowerCase() === cursor.hash.toLowerCase()
  const from = cursor.number + 1n
  const limit = BigInt(opts.maxBlocks ?? 10_000)
  const last = confirmed - from + 1n > limit ? from + limit - 1n : confirmed
  if (last < from) {
    out.scanned = { from: from.toString(), to: cursor.number.toString(), truncated: false }
    return out
  }
  out.scanned = { from: from.toString(), to: last.toString(), truncated: last < confirmed }
  const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
  const batch = BigInt(opts.batchBlocks ?? 200)
  const nonces = new Map<string, number | null>()
  const gasWallet = chain.gasWallet.address.toLowerCase()
  const treasury = chain.treasury.address.toLowerCase()
  for (let start = from; start <= last; start += batch) {
    const end = start + batch - 1n < last ? start + batch - 1n : last
    const range = await fetchRange(chain, start, end)
    const custodial = await watcherRepo.custodialByAddresses(ex, candidateAddresses(range))
    const hashes = receiptsNeeded(range, custodial)
    if (hashes.length === 0) continue
    const [own, receipts] = await Promise.all([
      watcherRepo.ownTransactions(ex, chainId, hashes),
      fetchReceipts(chain, hashes),
    ])
    const classified = classify({ range, receipts, custodial, own, nativeCoin, gasWallet })
    const txNonce = new Map<string, number>()
    for (const b of range.blocks) for (const t of b.transactions) txNonce.set(t.hash.toLowerCase(), t.nonce)
    for (const [txHash, list] of unknownPlatformTransfers(classified.ordered)) {
      const value = list.find((m) => m.kind === 'withdrawal')
      const fee = list.find((m) => m.kind === 'fee')
      const first = value ?? fee!
      if (!nonces.has(first.address))
        nonces.set(first.address, await findingsRepo.nextNonce(ex, chainId, first.address))
      out.unknownPlatformTransfers.push({
        txHash,
        block: first.blockNumber.toString(),
        address: first.address,
        ownerKind: first.custodial.ownerKind,
        ownerId: first.custodial.ownerId,
        nonce: txNonce.get(txHash) ?? -1,
        databaseNextNonce: nonces.get(first.address) ?? null,
        coin: value?.coin ?? fee!.coin,
        amount: (value?.amount ?? 0n).toString(),
        to: first.to,
        gasFee: (fee?.amount ?? 0n).toString(),
      })
    }
    // Lost gas top-ups are listed with the deposits (the watcher books them as the platform's gas).
    for (const d of [...classified.deposits, ...classified.ownTransfers.filter((m) => m.platformGas)])
      out.deposits.push({
        fromPlatform: d.from === gasWallet ? 'gasWallet' : d.from === treasury ? 'treasury' : null,
        txHash: d.txHash,
        block: d.blockNumber.toString(),
        address: d.address,
        ownerKind: d.custodial.ownerKind,
        ownerId: d.custodial.ownerId,
        coin: d.coin,
        amount: d.amount.toString(),
      })
  }
  return out
}
