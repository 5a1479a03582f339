#!/usr/bin/env node
// An independent verifier of WorkPay's proof of reserves. It shares no code with the service: it
// implements the published format (docs/reserves.md) from scratch and checks, without trusting
// the platform, that the caller's balances are in the signed liabilities tree and that the
// reserves, read from the chain itself at the stated block, cover the liabilities.
//
//   node clients/verify-reserves/verify.mjs --url http://127.0.0.1:3000 --token <token> \
//     --rpc http://127.0.0.1:8545 [--attestation 0x<address>] [--coins-file <path or URL>]
//
// `--coins-file` takes the attestation address the platform publishes in its coins file
// (`chain.reservesAttestationAddress`), as `--attestation` gives it by hand.
//
// Exit code 0: "balance included, reserves ≥ liabilities"; 1: what failed is printed.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { recoverMessageAddress } from 'viem'

const LIMIT = 1n << 256n
const ZERO32 = Buffer.alloc(32)
const TITLE = 'WorkPay proof of reserves v1'

/** A non-negative integer in decimal (no sign, no leading zero), below 2^256. */
export function units(text, what) {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text))
    throw new Error(`${what} is not a non-negative integer: ${JSON.stringify(text)}`)
  const v = BigInt(text)
  if (v >= LIMIT) throw new Error(`${what} is 2^256 or more`)
  return v
}

/** 0x + 64 hex digits, as 32 bytes. */
export function bytes32(text, what) {
  if (typeof text !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(text))
    throw new Error(`${what} is not 32 bytes of hex: ${JSON.stringify(text)}`)
  return Buffer.from(text.slice(2), 'hex')
}

const u256 = (v) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex')
const sha256 = (...parts) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest()
}

/** sha256(0x00 ‖ salt ‖ u32be(len(id)) ‖ utf8(id) ‖ u256be(balance)) */
export function leafHash(salt, id, balance) {
  const label = Buffer.from(id, 'utf8')
  const len = Buffer.alloc(4)
  len.writeUInt32BE(label.length)
  return sha256(Buffer.from([0]), salt, len, label, u256(balance))
}

/** sha256(0x01 ‖ left.hash ‖ u256be(left.sum) ‖ right.hash ‖ u256be(right.sum)) */
export function nodeOf(left, right) {
  const sum = left.sum + right.sum
  if (sum >= LIMIT) throw new Error('a node sum reaches 2^256')
  return { hash: sha256(Buffer.from([1]), left.hash, u256(left.sum), right.hash, u256(right.sum)), sum }
}

/** The root a proof leaf leads to (every field checked on the way). */
export function rootOfLeaf(leaf) {
  const balance = units(leaf.balance, `leaf ${leaf.id} balance`)
  const salt = bytes32(leaf.salt, `leaf ${leaf.id} salt`)
  const hash = leafHash(salt, String(leaf.id), balance)
  if (leaf.hash !== undefined && !hash.equals(bytes32(leaf.hash, `leaf ${leaf.id} hash`)))
    throw new Error(`leaf ${leaf.id}: its hash is not sha256 of its salt, id and balance`)
  let node = { hash, sum: balance }
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

/** sha256 over `<address>:<balance>\n` per reserve address, addresses ascending. */
export function reservesDigest(reserves) {
  const lines = reserves
    .map((r) => `${r.address.toLowerCase()}:${r.balance}\n`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return `0x${sha256(Buffer.from(lines.join(''), 'utf8')).toString('hex')}`
}

/** The attestation message of a snapshot, rebuilt from its published fields. */
export function attestationMessage(s, reserves) {
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
    `reserves digest: ${reservesDigest(reserves)}`,
  ].join('\n')
}

/** Whether `signature` is an EIP-191 signature of `message` by `address`. */
export async function signedBy(address, message, signature) {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return false
  try {
    const who = await recoverMessageAddress({ message, signature })
    return who.toLowerCase() === String(address).toLowerCase()
  } catch {
    return false
  }
}

let rpcId = 0
export async function rpcCall(rpc, method, params) {
  const res = await fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  })
  const body = await res.json()
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/** The balance of `address` in `asset` (`native` or an ERC-20 contract) at `block`, from the chain. */
export async function chainBalance(rpc, asset, address, block) {
  const tag = `0x${BigInt(block).toString(16)}`
  if (asset === 'native') return BigInt(await rpcCall(rpc, 'eth_getBalance', [address, tag]))
  const data = `0x70a08231${address.toLowerCase().replace(/^0x/, '').padStart(64, '0')}`
  const out = await rpcCall(rpc, 'eth_call', [{ to: asset, data }, tag])
  return BigInt(out === '0x' ? 0 : out)
}

async function getJson(url, token) {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  const body = await res.json().catch(() => ({}))
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status} ${body?.data?.code ?? ''}`)
  return body.data
}

/**
 * Verifies the latest snapshot of every coin. Answers `{ ok, problems, lines }`: `problems` names
 * every check that failed; `lines` is the report per coin.
 */
export async function verifyReserves({ url, token, rpc, attestation }) {
  const base = url.replace(/\/+$/, '')
  const problems = []
  const lines = []
  const fail = (coin, what) => problems.push(`${coin}: ${what}`)
  const me = (await getJson(`${base}/v1/account`, token))._id
  const { snapshots } = await getJson(`${base}/v1/reserves`)
  if (!Array.isArray(snapshots) || snapshots.length === 0)
    return { ok: false, problems: ['no snapshot is published'], lines }
  const chainId = BigInt(await rpcCall(rpc, 'eth_chainId', []))
  const seenSalts = new Map()
  const assets = new Map()
  const counted = new Map()
  const signers = new Set()
  for (const listed of snapshots) {
    const coin = String(listed.coin)
    try {
      const s = await getJson(`${base}/v1/reserves/${listed.id}`)
      const proof = await getJson(`${base}/v1/reserves/${listed.id}/proof`, token)
      for (const field of [
        'root',
        'liabilitiesTotal',
        'reservesTotal',
        'block',
        'blockHash',
        'message',
        'signature',
        'asset',
      ])
        if (s[field] !== listed[field] || proof.snapshot[field] !== listed[field])
          fail(coin, `the ${field} differs between the list, the snapshot and the proof`)
      if (BigInt(s.chainId) !== chainId)
        fail(coin, `snapshot of chain ${s.chainId}, the RPC serves chain ${chainId}`)
      const root = bytes32(s.root, 'root')
      const liabilities = units(s.liabilitiesTotal, 'liabilities total')
      const reservesTotal = units(s.reservesTotal, 'reserves total')

      // The attestation: the message is rebuilt from the fields, then its signature checked.
      const message = attestationMessage(s, s.reserves)
      if (message !== s.message) fail(coin, 'the signed message does not state these fields')
      if (!(await signedBy(s.attestationAddress, message, s.signature)))
        fail(coin, `the attestation is not signed by ${s.attestationAddress}`)
      if (attestation && String(s.attestationAddress).toLowerCase() !== attestation.toLowerCase())
        fail(coin, `attested by ${s.attestationAddress}, not by the published key ${attestation}`)
      signers.add(String(s.attestationAddress).toLowerCase())

      // The caller's leaves lead to the signed root, and sum to its total.
      const wallet = proof.leaves.filter((l) => l.kind === 'wallet')
      if (!wallet.some((l) => l.id === `user:${me}`))
        fail(
          coin,
          `your wallet (user:${me}) is not in the tree (if you signed up after ${s.takenAt}, wait for the next snapshot)`,
        )
      if (wallet.some((l) => l.id !== `user:${me}`)) fail(coin, 'the proof shows a wallet that is not yours')
      let mine = 0n
      for (const leaf of proof.leaves) {
        try {
          const got = rootOfLeaf(leaf)
          if (!got.hash.equals(root)) fail(coin, `leaf ${leaf.id} does not lead to the signed root`)
          else if (got.sum !== liabilities)
            fail(coin, `leaf ${leaf.id} leads to a sum other than the liabilities total`)
          const salt = got.salt.toString('hex')
          if (seenSalts.has(salt)) fail(coin, `leaf ${leaf.id} reuses the salt of ${seenSalts.get(salt)}`)
          seenSalts.set(salt, `${coin}/${leaf.id}`)
          if (got.salt.equals(ZERO32)) fail(coin, `leaf ${leaf.id} has an empty salt`)
          mine += got.balance
        } catch (err) {
          fail(coin, err.message)
        }
      }

      // Every reserve address signed the message with its own key and holds its balance on chain.
      let sum = 0n
      const addresses = new Set()
      const hash = (await rpcCall(rpc, 'eth_getBlockByNumber', [`0x${BigInt(s.block).toString(16)}`, false]))
        ?.hash
      if (String(hash).toLowerCase() !== String(s.blockHash).toLowerCase())
        fail(coin, `block ${s.block} on chain is ${hash}, not ${s.blockHash}`)
      for (const r of s.reserves) {
        const address = String(r.address).toLowerCase()
        if (addresses.has(address)) fail(coin, `reserve ${address} is listed twice`)
        addresses.add(address)
        const key = `${s.chainId}:${s.asset}:${address}`
        if (counted.has(key)) fail(coin, `reserve ${address} is counted again (also in ${counted.get(key)})`)
        counted.set(key, coin)
        const balance = units(r.balance, `reserve ${address} balance`)
        sum += balance
        if (!(await signedBy(address, message, r.signature)))
          fail(coin, `reserve ${address} has no valid signature of the snapshot by its own key`)
        const onChain = await chainBalance(rpc, s.asset, address, s.block)
        if (onChain !== balance)
          fail(coin, `reserve ${address} holds ${onChain} at block ${s.block}, not ${balance}`)
      }
      if (sum !== reservesTotal) fail(coin, `the reserve balances add up to ${sum}, not ${reservesTotal}`)
      const asset = `${s.chainId}:${s.asset}`
      if (assets.has(asset))
        fail(coin, `its asset ${s.asset} is also ${assets.get(asset)}'s: the same reserves counted twice`)
      assets.set(asset, coin)
      if (reservesTotal < liabilities) fail(coin, `reserves ${reservesTotal} < liabilities ${liabilities}`)
      lines.push(
        `${coin}: block ${s.block}, your leaves ${proof.leaves.length} (${mine} base units), liabilities ${liabilities}, reserves ${reservesTotal} at ${s.reserves.length} addresses`,
      )
    } catch (err) {
      fail(coin, err.message)
    }
  }
  if (signers.size > 1) problems.push(`the snapshots are attested by ${signers.size} different keys`)
  return { ok: problems.length === 0, problems, lines }
}

/** The attestation address a coins file (a path or an http(s) URL) publishes. */
export async function attestationOfCoinsFile(where) {
  const text = /^https?:\/\//.test(where)
    ? await fetch(where).then((r) => {
        if (!r.ok) throw new Error(`GET ${where}: HTTP ${r.status}`)
        return r.text()
      })
    : await readFile(where, 'utf8')
  let doc
  try {
    doc = JSON.parse(text)
  } catch {
    throw new Error(`the coins file ${where} is not JSON`)
  }
  const address = doc?.chain?.reservesAttestationAddress
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new Error(`the coins file ${where} publishes no chain.reservesAttestationAddress`)
  return address.toLowerCase()
}

function args(argv) {
  const out = {}
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i])
    if (!m) continue
    out[m[1]] = m[2] ?? argv[++i]
  }
  return out
}

async function main() {
  const a = args(process.argv.slice(2))
  if (!a.url || !a.token || !a.rpc) {
    console.error(
      'usage: verify.mjs --url <API base URL> --token <bearer token> --rpc <JSON-RPC URL> [--attestation <address>] [--coins-file <path or URL>]',
    )
    process.exit(2)
  }
  try {
    let attestation = a.attestation
    if (a['coins-file']) {
      const published = await attestationOfCoinsFile(a['coins-file'])
      if (attestation && attestation.toLowerCase() !== published)
        throw new Error(
          `--attestation ${attestation} is not the address the coins file publishes (${published})`,
        )
      attestation = published
    }
    const { ok, problems, lines } = await verifyReserves({
      url: a.url,
      token: a.token,
      rpc: a.rpc,
      attestation,
    })
    for (const l of lines) console.log(l)
    if (ok) {
      console.log('balance included, reserves ≥ liabilities')
      process.exit(0)
    }
    console.log('FAILED:')
    for (const p of problems) console.log(`  - ${p}`)
    process.exit(1)
  } catch (err) {
    console.log(`FAILED: ${err.message}`)
    process.exit(1)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
