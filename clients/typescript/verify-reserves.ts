// Proof of reserves, checked on the client: the caller's balances are in the platform's signed
// Merkle-sum tree of liabilities, and the reserves, read from the chain itself at the stated block,
// cover them. It implements the published format (docs/reserves.md, "Format" and "What the
// verifier checks"), as the command-line verifier clients/verify-reserves does, and shares no code
// with the service: a user trusts only the service's JSON, the chain and the attestation address
// published elsewhere (the coins file, the website).
import { secp256k1 } from '@noble/curves/secp256k1'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'

export interface VerifyReservesOptions {
  /** the service's address, e.g. `http://127.0.0.1:3000` */
  baseUrl: string
  /** the caller's bearer token */
  token: string
  /** a JSON-RPC endpoint of the chain the snapshots name (not the platform's, ideally your own) */
  rpcUrl: string
  /** the attestation address the platform publishes; without it, only consistency is checked */
  attestationAddress?: string
  /** the fetch to use (default: the global one) */
  fetch?: typeof globalThis.fetch
}

export interface ReservesCoinReport {
  coin: string
  snapshotId: string
  block: string
  /** the caller's leaves (wallet and escrows) and their sum, base units */
  leaves: number
  balance: string
  liabilitiesTotal: string
  reservesTotal: string
  reserveAddresses: number
}

export interface ReservesVerification {
  /** true when every check passed: your balance is included and reserves ≥ liabilities */
  ok: boolean
  /** every check that failed, `<coin>: <what>` */
  problems: string[]
  /** what was checked, per coin */
  coins: ReservesCoinReport[]
}

const LIMIT = 1n << 256n
const TITLE = 'WorkPay proof of reserves v1'
const encoder = new TextEncoder()
type Bytes = Uint8Array

const toHex = (b: Bytes) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
const fromHex = (hex: string): Bytes => {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}
const concat = (...parts: Bytes[]): Bytes => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
const equal = (a: Bytes, b: Bytes) => a.length === b.length && a.every((x, i) => x === b[i])

/** A non-negative integer in decimal (no sign, no leading zero), below 2^256. */
function units(text: unknown, what: string): bigint {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text))
    throw new Error(`${what} is not a non-negative integer: ${JSON.stringify(text)}`)
  const v = BigInt(text)
  if (v >= LIMIT) throw new Error(`${what} is 2^256 or more`)
  return v
}

/** 0x + 64 hex digits, as 32 bytes. */
function bytes32(text: unknown, what: string): Bytes {
  if (typeof text !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(text))
    throw new Error(`${what} is not 32 bytes of hex: ${JSON.stringify(text)}`)
  return fromHex(text.slice(2))
}

const u256 = (v: bigint) => fromHex(v.toString(16).padStart(64, '0'))

/** sha256(0x00 ‖ salt ‖ u32be(len(id)) ‖ utf8(id) ‖ u256be(balance)) */
export function reservesLeafHash(salt: Bytes, id: string, balance: bigint): Bytes {
  const label = encoder.encode(id)
  const length = new Uint8Array(4)
  new DataView(length.buffer).setUint32(0, label.length)
  return sha256(concat(Uint8Array.of(0), salt, length, label, u256(balance)))
}

interface SumNode {
  hash: Bytes
  sum: bigint
}

/** sha256(0x01 ‖ left.hash ‖ u256be(left.sum) ‖ right.hash ‖ u256be(right.sum)) */
function nodeOf(left: SumNode, right: SumNode): SumNode {
  const sum = left.sum + right.sum
  if (sum >= LIMIT) throw new Error('a node sum reaches 2^256')
  return {
    hash: sha256(concat(Uint8Array.of(1), left.hash, u256(left.sum), right.hash, u256(right.sum))),
    sum,
  }
}

interface ProofLeaf {
  kind: string
  id: string
  balance: string
  salt: string
  hash?: string
  path: { side: string; hash: string; sum: string }[]
}

/** The root a proof leaf leads to (every field checked on the way). */
function rootOfLeaf(leaf: ProofLeaf) {
  const balance = units(leaf.balance, `leaf ${leaf.id} balance`)
  const salt = bytes32(leaf.salt, `leaf ${leaf.id} salt`)
  const hash = reservesLeafHash(salt, String(leaf.id), balance)
  if (leaf.hash !== undefined && !equal(hash, bytes32(leaf.hash, `leaf ${leaf.id} hash`)))
    throw new Error(`leaf ${leaf.id}: its hash is not sha256 of its salt, id and balance`)
  let node: SumNode = { hash, sum: balance }
  if (!Array.isArray(leaf.path)) throw new Error(`leaf ${leaf.id} has no path`)
  for (const [i, step] of leaf.path.entries()) {
    const sibling = {
      hash: bytes32(step.hash, `path step ${i} hash`),
      sum: units(step.sum, `path step ${i} sum`),
    }
    if (step.side === 'left') node = nodeOf(sibling, node)
    else if (step.side === 'right') node = nodeOf(node, sibling)
    else throw new Error(`path step ${i} has no side`)
  }
  return { ...node, salt, balance }
}

interface Reserve {
  address: string
  balance: string
  signature: string
}

interface Snapshot {
  id: string
  chainId: string
  coin: string
  asset: string
  block: string
  blockHash: string
  takenAt: string
  root: string
  liabilitiesTotal: string
  reservesTotal: string
  leafCount: number
  message: string
  signature: string
  attestationAddress: string
  reserves: Reserve[]
}

/** sha256 over `<address>:<balance>\n` per reserve address, addresses ascending. */
function reservesDigest(reserves: Reserve[]): string {
  const lines = reserves
    .map((r) => `${String(r.address).toLowerCase()}:${r.balance}\n`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return `0x${toHex(sha256(encoder.encode(lines.join(''))))}`
}

/** The attestation message of a snapshot, rebuilt from its published fields. */
export function reservesAttestationMessage(
  s: Omit<Snapshot, 'message' | 'signature' | 'attestationAddress'>,
) {
  return [
    TITLE,
    `snapshot: ${s.id}`,
    `chain id: ${s.chainId}`,
    `coin: ${s.coin}`,
    `asset: ${s.asset}`,
    `block: ${s.block}`,
    `block hash: ${String(s.blockHash).toLowerCase()}`,
    `taken at: ${s.takenAt}`,
    `liabilities root: ${s.root}`,
    `liabilities total: ${s.liabilitiesTotal}`,
    `leaves: ${s.leafCount}`,
    `reserves total: ${s.reservesTotal}`,
    `reserves digest: ${reservesDigest(s.reserves)}`,
  ].join('\n')
}

/** The address that made an EIP-191 (`personal_sign`) signature of `message`, or undefined. */
function signerOf(message: string, signature: unknown): string | undefined {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  try {
    const text = encoder.encode(message)
    const digest = keccak_256(concat(encoder.encode(`\x19Ethereum Signed Message:\n${text.length}`), text))
    const raw = fromHex(signature.slice(2))
    const v = raw[64]!
    const recovery = v >= 27 ? v - 27 : v
    if (recovery !== 0 && recovery !== 1) return undefined
    const point = secp256k1.Signature.fromCompact(raw.slice(0, 64))
      .addRecoveryBit(recovery)
      .recoverPublicKey(digest)
    return `0x${toHex(keccak_256(point.toRawBytes(false).slice(1)).slice(-20))}`
  } catch {
    return undefined
  }
}

/** Whether `signature` is an EIP-191 signature of `message` by `address`. */
export function reservesSignedBy(address: string, message: string, signature: unknown): boolean {
  const who = signerOf(message, signature)
  return who !== undefined && who === String(address).toLowerCase()
}

/**
 * The attestation address a coins file publishes (`chain.reservesAttestationAddress`, lower case),
 * from its parsed JSON: give it to `verifyReserves` as `attestationAddress`.
 */
export function reservesAttestationOfCoinsFile(doc: unknown): string {
  const address = (doc as { chain?: { reservesAttestationAddress?: unknown } } | null)?.chain
    ?.reservesAttestationAddress
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new Error('the coins file publishes no chain.reservesAttestationAddress')
  return address.toLowerCase()
}

/**
 * Verifies the latest proof-of-reserves snapshot of every coin for the caller: their wallet (and the
 * escrows they fund or are paid from) leads to the signed root, the signatures hold, every reserve
 * address signed with its own key and holds its balance on chain at the block, and reserves cover
 * liabilities. Never throws for a failed check: `problems` names each one.
 */
export async function verifyReserves(options: VerifyReservesOptions): Promise<ReservesVerification> {
  const http = options.fetch ?? globalThis.fetch
  const base = options.baseUrl.replace(/\/+$/, '')
  const problems: string[] = []
  const coins: ReservesCoinReport[] = []
  const fail = (coin: string, what: string) => problems.push(`${coin}: ${what}`)

  let rpcId = 0
  const rpc = async (method: string, params: unknown[]): Promise<any> => {
    const res = await http(options.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    })
    const body = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
  const get = async (path: string, auth: boolean): Promise<any> => {
    const res = await http(`${base}${path}`, {
      headers: auth ? { authorization: `Bearer ${options.token}` } : {},
    })
    const body = (await res.json().catch(() => ({}))) as { data?: { code?: string } }
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${body?.data?.code ?? ''}`)
    return body.data
  }
  const chainBalance = async (asset: string, address: string, block: string) => {
    const tag = `0x${BigInt(block).toString(16)}`
    if (asset === 'native') return BigInt(await rpc('eth_getBalance', [address, tag]))
    const data = `0x70a08231${address.toLowerCase().replace(/^0x/, '').padStart(64, '0')}`
    const out = await rpc('eth_call', [{ to: asset, data }, tag])
    return BigInt(out === '0x' ? 0 : out)
  }

  try {
    const me = String((await get('/v1/account', true))._id)
    const { snapshots } = (await get('/v1/reserves', false)) as { snapshots: Snapshot[] }
    if (!Array.isArray(snapshots) || snapshots.length === 0)
      return { ok: false, problems: ['no snapshot is published'], coins }
    const chainId = BigInt(await rpc('eth_chainId', []))
    const seenSalts = new Map<string, string>()
    const assets = new Map<string, string>()
    const counted = new Map<string, string>()
    const signers = new Set<string>()
    for (const listed of snapshots) {
      const coin = String(listed.coin)
      try {
        const s = (await get(`/v1/reserves/${encodeURIComponent(listed.id)}`, false)) as Snapshot
        const proof = (await get(`/v1/reserves/${encodeURIComponent(listed.id)}/proof`, true)) as {
          snapshot: Snapshot
          leaves: ProofLeaf[]
        }
        const fields = [
          'root',
          'liabilitiesTotal',
          'reservesTotal',
          'block',
          'blockHash',
          'message',
          'signature',
          'asset',
        ] as const
        for (const field of fields)
          if (s[field] !== listed[field] || proof.snapshot[field] !== listed[field])
            fail(coin, `the ${field} differs between the list, the snapshot and the proof`)
        if (BigInt(s.chainId) !== chainId)
          fail(coin, `snapshot of chain ${s.chainId}, the RPC serves chain ${chainId}`)
        const root = bytes32(s.root, 'root')
        const liabilities = units(s.liabilitiesTotal, 'liabilities total')
        const reservesTotal = units(s.reservesTotal, 'reserves total')

        // The attestation: the message is rebuilt from the fields, then its signature checked.
        const message = reservesAttestationMessage(s)
        if (message !== s.message) fail(coin, 'the signed message does not state these fields')
        if (!reservesSignedBy(s.attestationAddress, message, s.signature))
          fail(coin, `the attestation is not signed by ${s.attestationAddress}`)
        if (
          options.attestationAddress &&
          String(s.attestationAddress).toLowerCase() !== options.attestationAddress.toLowerCase()
        )
          fail(
            coin,
            `attested by ${s.attestationAddress}, not by the published key ${options.attestationAddress}`,
          )
        signers.add(String(s.attestationAddress).toLowerCase())

        // The caller's leaves lead to the signed root, and sum to its total.
        const wallet = proof.leaves.filter((l) => l.kind === 'wallet')
        if (!wallet.some((l) => l.id === `user:${me}`))
          fail(
            coin,
            `your wallet (user:${me}) is not in the tree (if you signed up after ${s.takenAt}, wait for the next snapshot)`,
          )
        if (wallet.some((l) => l.id !== `user:${me}`))
          fail(coin, 'the proof shows a wallet that is not yours')
        let mine = 0n
        for (const leaf of proof.leaves) {
          try {
            const got = rootOfLeaf(leaf)
            if (!equal(got.hash, root)) fail(coin, `leaf ${leaf.id} does not lead to the signed root`)
            else if (got.sum !== liabilities)
              fail(coin, `leaf ${leaf.id} leads to a sum other than the liabilities total`)
            const salt = toHex(got.salt)
            if (seenSalts.has(salt)) fail(coin, `leaf ${leaf.id} reuses the salt of ${seenSalts.get(salt)}`)
            seenSalts.set(salt, `${coin}/${leaf.id}`)
            if (got.salt.every((b) => b === 0)) fail(coin, `leaf ${leaf.id} has an empty salt`)
            mine += got.balance
          } catch (err) {
            fail(coin, (err as Error).message)
          }
        }

        // Every reserve address signed the message with its own key and holds its balance on chain.
        const block = await rpc('eth_getBlockByNumber', [`0x${BigInt(s.block).toString(16)}`, false])
        if (String(block?.hash).toLowerCase() !== String(s.blockHash).toLowerCase())
          fail(coin, `block ${s.block} on chain is ${block?.hash}, not ${s.blockHash}`)
        let sum = 0n
        const addresses = new Set<string>()
        for (const r of s.reserves) {
          const address = String(r.address).toLowerCase()
          if (addresses.has(address)) fail(coin, `reserve ${address} is listed twice`)
          addresses.add(address)
          const key = `${s.chainId}:${s.asset}:${address}`
          if (counted.has(key))
            fail(coin, `reserve ${address} is counted again (also in ${counted.get(key)})`)
          counted.set(key, coin)
          const balance = units(r.balance, `reserve ${address} balance`)
          sum += balance
          if (!reservesSignedBy(address, message, r.signature))
            fail(coin, `reserve ${address} has no valid signature of the snapshot by its own key`)
          const onChain = await chainBalance(s.asset, address, s.block)
          if (onChain !== balance)
            fail(coin, `reserve ${address} holds ${onChain} at block ${s.block}, not ${balance}`)
        }
        if (sum !== reservesTotal) fail(coin, `the reserve balances add up to ${sum}, not ${reservesTotal}`)
        const asset = `${s.chainId}:${s.asset}`
        if (assets.has(asset))
          fail(coin, `its asset ${s.asset} is also ${assets.get(asset)}'s: the same reserves counted twice`)
        assets.set(asset, coin)
        if (reservesTotal < liabilities) fail(coin, `reserves ${reservesTotal} < liabilities ${liabilities}`)
        coins.push({
          coin,
          snapshotId: s.id,
          block: s.block,
          leaves: proof.leaves.length,
          balance: mine.toString(),
          liabilitiesTotal: liabilities.toString(),
          reservesTotal: reservesTotal.toString(),
          reserveAddresses: s.reserves.length,
        })
      } catch (err) {
        fail(coin, (err as Error).message)
      }
    }
    if (signers.size > 1) problems.push(`the snapshots are attested by ${signers.size} different keys`)
  } catch (err) {
    problems.push((err as Error).message)
  }
  return { ok: problems.length === 0, problems, coins }
}
