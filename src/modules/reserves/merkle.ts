// The Merkle-sum tree of a snapshot's liabilities, as pure code: leaves, nodes, the root and the
// path of one leaf. The format is specified in docs/reserves.md ("Format"); the verifier in
// clients/verify-reserves implements the same specification without sharing this code.
import { createHash, createHmac } from 'node:crypto'

/** 2^256: every sum is an unsigned 256-bit integer */
const LIMIT = 1n << 256n

export interface SumNode {
  /** sha-256, 32 bytes */
  hash: Buffer
  /** base units, 0 ≤ sum < 2^256 */
  sum: bigint
}

export interface LeafInput {
  /** the account's label in the tree (`user:<id>`, `escrow:<id>`, `platform:<kind>:<id>`) */
  id: string
  /** base units, never negative */
  balance: bigint
  /** 32 bytes, distinct per leaf and per snapshot */
  salt: Buffer
}

export interface PathStep {
  /** where the sibling sits: `left` means sibling ‖ node, `right` means node ‖ sibling */
  side: 'left' | 'right'
  hash: Buffer
  sum: bigint
}

/** The node that pairs with the last node of a level that has an odd number of nodes. */
export const PADDING: SumNode = Object.freeze({ hash: Buffer.alloc(32), sum: 0n }) as SumNode
/** The root of a tree without leaves. */
export const EMPTY_ROOT: SumNode = PADDING

/** 32-byte big-endian unsigned integer. */
export function u256(value: bigint): Buffer {
  if (value < 0n || value >= LIMIT) throw new RangeError('a sum must be in 0 .. 2^256-1')
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex')
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}

/** sha256(0x00 ‖ salt ‖ u32be(len(id)) ‖ utf8(id) ‖ u256be(balance)) */
export function leafHash(leaf: LeafInput): Buffer {
  if (leaf.salt.length !== 32) throw new RangeError('a salt is 32 bytes')
  const id = Buffer.from(leaf.id, 'utf8')
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(leaf.salt)
    .update(u32(id.length))
    .update(id)
    .update(u256(leaf.balance))
    .digest()
}

/** sha256(0x01 ‖ left.hash ‖ u256be(left.sum) ‖ right.hash ‖ u256be(right.sum)), sum = left + right */
export function parent(left: SumNode, right: SumNode): SumNode {
  const sum = left.sum + right.sum
  const hash = createHash('sha256')
    .update(Buffer.from([1]))
    .update(left.hash)
    .update(u256(left.sum))
    .update(right.hash)
    .update(u256(right.sum))
    .digest()
  u256(sum)
  return { hash, sum }
}

/**
 * The salt of one leaf: HMAC-SHA256(snapshot secret, "workpay-reserves-salt/v1\n" ‖ coin ‖ "\n" ‖ id).
 * A fresh secret per snapshot makes every leaf's salt new in every snapshot.
 */
export function leafSalt(secret: Buffer, coin: string, id: string): Buffer {
  return createHmac('sha256', secret).update(`workpay-reserves-salt/v1\n${coin}\n${id}`, 'utf8').digest()
}

/** A built tree: `levels[0]` are the leaves in tree order, the last level holds the root. */
export interface SumTree {
  levels: SumNode[][]
  root: SumNode
}

/**
 * Builds the tree over leaves already hashed. Leaves are ordered by hash (byte order), so that a
 * leaf's position says nothing about its account.
 */
export function buildTree(leaves: SumNode[]): SumTree {
  for (const l of leaves) if (l.sum < 0n) throw new RangeError('a leaf balance is never negative')
  const first = [...leaves].sort((a, b) => Buffer.compare(a.hash, b.hash))
  if (first.length === 0) return { levels: [], root: EMPTY_ROOT }
  const levels: SumNode[][] = [first]
  let level = first
  while (level.length > 1) {
    const next: SumNode[] = []
    for (let i = 0; i < level.length; i += 2) next.push(parent(level[i]!, level[i + 1] ?? PADDING))
    levels.push(next)
    level = next
  }
  return { levels, root: level[0]! }
}

/** The siblings from leaf `index` (in `levels[0]`) up to the root. */
export function pathOf(levels: SumNode[][], index: number): PathStep[] {
  const out: PathStep[] = []
  let i = index
  for (let d = 0; d < levels.length - 1; d++) {
    const level = levels[d]!
    const sibling = i % 2 === 0 ? (level[i + 1] ?? PADDING) : level[i - 1]!
    out.push({ side: i % 2 === 0 ? 'right' : 'left', hash: sibling.hash, sum: sibling.sum })
    i = Math.floor(i / 2)
  }
  return out
}

/** The root a leaf and its path lead to. */
export function rootFrom(leaf: SumNode, path: PathStep[]): SumNode {
  let node = leaf
  for (const step of path)
    node = step.side === 'left' ? parent({ hash: step.hash, sum: step.sum }, node) : parent(node, step)
  return node
}
