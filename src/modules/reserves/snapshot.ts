// Taking a snapshot: the ledger read in one repeatable-read transaction (with the deposit
// watcher's cursor, the block the ledger has seen the chain up to), a Merkle-sum tree of the
// liabilities per coin, the reserves read on chain at that one block (outside any transaction),
// the attestation signed by the platform key and by the key of every reserve address, all stored
// in one transaction per coin and never changed.
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { privateKeyToAccount } from 'viem/accounts'
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter, ChainCoin } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { LedgerAccountKind } from '../ledger/types.ts'
import type { CustodialKey } from '../settlement/types.ts'
import { assetOf, attestationMessage, leafLabel, reservesDigest } from './format.ts'
import { buildTree, leafHash, leafSalts, sortByHash } from './merkle.ts'
import { reservesRepo } from './repo.ts'

/** rows per page when reading the ledger and the custodial keys */
const PAGE = 20_000
/** chain balance reads in flight at once */
const READS = 8

export interface SnapshotDeps {
  db: Db
  chain: ChainAdapter
  clock: Clock
  log: Logger
  secrets: SecretBox
  /** the platform attestation key (RESERVES_ATTESTATION_KEY) */
  attestationKey: `0x${string}`
  ledger: {
    holdings(
      ex: Executor,
      after: string,
      limit: number,
    ): Promise<{ id: string; kind: LedgerAccountKind; ownerId: string; coin: string; balance: bigint }[]>
  }
  keys: {
    page(ex: Executor, after: string, limit: number): Promise<CustodialKey[]>
    signMessage(ex: Executor, address: string, message: string): Promise<`0x${string}`>
  }
  escrowParties(
    ex: Executor,
    ids: string[],
  ): Promise<{ id: string; payerId: string; receiverId: string | null }[]>
  /** the deposit watcher's cursor, read in the given transaction */
  cursor(ex: Executor): Promise<{ number: bigint; hash: string } | null>
  /** rows per page when reading the ledger and the keys (default 20,000) */
  pageSize?: number
}

export interface Trigger {
  trigger: 'schedule' | 'operator'
  requestedBy: string | null
}

interface LedgerState {
  block: { number: bigint; hash: string }
  holdings: Awaited<ReturnType<SnapshotDeps['ledger']['holdings']>>
  keys: CustodialKey[]
  parties: Map<string, { payerId: string; receiverId: string | null }>
}

export interface TakenSnapshot {
  id: string
  coin: string
  block: string
  liabilitiesTotal: bigint
  reservesTotal: bigint
  leafCount: number
  /** milliseconds per step: the ledger read (shared by the coins of a run), the tree, the chain reads, the signatures, the write */
  ms: { read: number; tree: number; chain: number; sign: number; store: number }
}

/** One state of the whole ledger and the block it reflects. */
async function readLedger(d: SnapshotDeps): Promise<LedgerState> {
  return d.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx: Tx) => {
      const block = await d.cursor(tx)
      if (!block) throw errors.unavailable('The chain has not been read yet; try again shortly')
      const size = d.pageSize ?? PAGE
      const holdings: LedgerState['holdings'] = []
      for (let after = ''; ; ) {
        const page = await d.ledger.holdings(tx, after, size)
        holdings.push(...page)
        if (page.length < size) break
        after = page[page.length - 1]!.id
      }
      const keys: CustodialKey[] = []
      for (let after = ''; ; ) {
        const page = await d.keys.page(tx, after, size)
        keys.push(...page)
        if (page.length < size) break
        after = page[page.length - 1]!.address
      }
      const escrowIds = holdings.filter((h) => h.kind === 'escrow' && h.balance > 0n).map((h) => h.ownerId)
      const parties = new Map(
        (await d.escrowParties(tx, [...new Set(escrowIds)])).map((p) => [p.id, p] as const),
      )
      return { block, holdings, keys, parties }
    })
}

/** Reads `fn` over `items`, `READS` at a time. */
async function pooled<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(READS, items.length) }, worker))
  return out
}

/** Takes a snapshot of every coin of the chain at one block; answers what was stored. */
export async function takeSnapshots(d: SnapshotDeps, why: Trigger): Promise<TakenSnapshot[]> {
  const started = performance.now()
  const state = await readLedger(d)
  const read = Math.round(performance.now() - started)
  const runId = newId()
  const out: TakenSnapshot[] = []
  for (const coin of d.chain.coins) out.push(await snapshotCoin(d, state, coin, runId, why, read))
  return out
}

async function snapshotCoin(
  d: SnapshotDeps,
  state: LedgerState,
  coin: ChainCoin,
  runId: string,
  why: Trigger,
  readMs: number,
): Promise<TakenSnapshot> {
  let mark = performance.now()
  const lap = () => {
    const now = performance.now()
    const ms = Math.round(now - mark)
    mark = now
    return ms
  }
  const id = newId()
  const secret = randomBytes(32)
  const rows = state.holdings.filter((h) => h.coin === coin.reference)
  // Every user's wallet has a leaf (zero too, so that each user finds theirs); an escrow or a
  // platform account only while it holds something.
  const included = rows.filter((h) => h.kind === 'user' || h.balance > 0n)
  const saltOf = leafSalts(secret, coin.reference)
  const hashed = included.map((h) => {
    if (h.balance < 0n) throw new Error(`ledger account ${h.id} is below zero: no snapshot is taken`)
    const label = leafLabel(h.kind, h.ownerId)
    const party = h.kind === 'escrow' ? state.parties.get(h.ownerId) : undefined
    return {
      label,
      userId: h.kind === 'user' ? h.ownerId : (party?.payerId ?? null),
      receiverId: party?.receiverId ?? null,
      node: {
        hash: leafHash({ id: label, balance: h.balance, salt: saltOf(label) }),
        sum: h.balance,
      },
    }
  })
  // In tree order (by hash), so that a leaf's row carries its position.
  const leaves = sortByHash(hashed, (l) => l.node.hash)
  const tree = buildTree(leaves.map((l) => l.node))
  const treeMs = lap()

  // Reserves: the addresses where the ledger keeps something of this coin, and every platform address.
  const byOwner = new Map<string, string>(
    state.keys.map((k) => [`${k.ownerKind}:${k.ownerId}`, k.address] as const),
  )
  const known = new Set(state.keys.map((k) => k.address))
  const candidates = new Set(state.keys.filter((k) => k.ownerKind === 'treasury').map((k) => k.address))
  for (const h of included) {
    if (h.balance === 0n) continue
    const owner =
      h.kind === 'user' || h.kind === 'escrow' || h.kind === 'treasury' ? `${h.kind}:${h.ownerId}` : ''
    const address =
      byOwner.get(owner) ?? (known.has(h.ownerId.toLowerCase()) ? h.ownerId.toLowerCase() : undefined)
    if (address) candidates.add(address)
  }
  const block = state.block.number
  const balances = await pooled([...candidates], async (address) => ({
    address,
    balance: await d.chain.balanceOf(address, coin.reference, block),
  }))
  const reserves = balances.filter((r) => r.balance > 0n).sort((a, b) => (a.address < b.address ? -1 : 1))
  const reservesTotal = reserves.reduce((s, r) => s + r.balance, 0n)
  const chainMs = lap()

  const takenAt = d.clock.now()
  const root = `0x${tree.root.hash.toString('hex')}`
  const message = attestationMessage({
    id,
    chainId: String(d.chain.chainId),
    coin: coin.reference,
    asset: assetOf(coin),
    block: block.toString(),
    blockHash: state.block.hash,
    takenAt,
    root,
    liabilitiesTotal: tree.root.sum,
    leafCount: leaves.length,
    reservesTotal,
    reservesDigest: reservesDigest(reserves),
  })
  const attestation = privateKeyToAccount(d.attestationKey)
  const signature = await attestation.signMessage({ message })
  const signed: { address: string; balance: bigint; signature: string }[] = []
  for (const r of reserves)
    signed.push({ ...r, signature: await d.keys.signMessage(d.db, r.address, message) })
  const signMs = lap()

  await d.db.transaction().execute((tx) =>
    reservesRepo.insert(tx, {
      snapshot: {
        id,
        runId,
        chainId: String(d.chain.chainId),
        coin: coin.reference,
        asset: assetOf(coin),
        decimals: coin.decimals,
        blockNumber: Number(block),
        blockHash: state.block.hash.toLowerCase(),
        takenAt,
        rootHash: root,
        liabilitiesTotal: tree.root.sum,
        reservesTotal,
        leafCount: leaves.length,
        message,
        signature,
        attestationAddress: attestation.address.toLowerCase(),
        sealedSecret: d.secrets.seal(secret.toString('hex'), `reserves:${id}`),
        trigger: why.trigger,
        requestedBy: why.requestedBy,
      },
      addresses: signed,
      levels: tree.levels,
      leaves: leaves.map((l) => ({ label: l.label, userId: l.userId, receiverId: l.receiverId })),
    }),
  )
  const ms = { read: readMs, tree: treeMs, chain: chainMs, sign: signMs, store: lap() }
  d.log.info(
    {
      event: 'reserves.snapshot',
      snapshotId: id,
      coin: coin.reference,
      block: block.toString(),
      liabilities: tree.root.sum.toString(),
      reserves: reservesTotal.toString(),
      leaves: leaves.length,
      ms,
    },
    'proof-of-reserves snapshot taken',
  )
  return {
    id,
    coin: coin.reference,
    block: block.toString(),
    liabilitiesTotal: tree.root.sum,
    reservesTotal,
    leafCount: leaves.length,
    ms,
  }
}
