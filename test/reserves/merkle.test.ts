// The Merkle-sum tree as pure code: hashing, ordering, padding, paths and the published vector.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  buildTree,
  EMPTY_ROOT,
  leafHash,
  leafSalt,
  leafSalts,
  PADDING,
  parent,
  pathOf,
  rootFrom,
  sortByHash,
  u256,
} from '../../src/modules/reserves/merkle.ts'

const salt = (n: number) => Buffer.alloc(32, n)
const leaf = (id: string, balance: bigint, n: number) => ({
  hash: leafHash({ id, balance, salt: salt(n) }),
  sum: balance,
})

describe('Merkle-sum tree', () => {
  it('hashes a leaf as sha256(0x00 ‖ salt ‖ u32be(len) ‖ id ‖ u256be(balance))', () => {
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), salt(7), Buffer.from([0, 0, 0, 6]), Buffer.from('user:1')]))
      .update(Buffer.from(`${'0'.repeat(62)}2a`, 'hex'))
      .digest()
    expect(leafHash({ id: 'user:1', balance: 42n, salt: salt(7) })).toEqual(expected)
  })

  it('a node commits to both hashes and both sums', () => {
    const a = leaf('user:a', 5n, 1)
    const b = leaf('user:b', 7n, 2)
    const p = parent(a, b)
    expect(p.sum).toBe(12n)
    expect(parent(a, { ...b, sum: 8n }).hash).not.toEqual(p.hash)
    expect(parent(b, a).hash).not.toEqual(p.hash)
  })

  it('every leaf of trees of 1 to 17 leaves leads to the root, whose sum is the total', () => {
    for (let n = 1; n <= 17; n++) {
      const leaves = Array.from({ length: n }, (_, i) => leaf(`user:${i}`, BigInt(i * 10 + 1), i))
      const tree = buildTree(leaves)
      const total = leaves.reduce((s, l) => s + l.sum, 0n)
      expect(tree.root.sum).toBe(total)
      tree.levels[0]!.forEach((l, i) => {
        const root = rootFrom(l, pathOf(tree.levels, i))
        expect(root.hash).toEqual(tree.root.hash)
        expect(root.sum).toBe(total)
      })
    }
  })

  it('orders leaves by hash, whatever order they come in', () => {
    const leaves = Array.from({ length: 6 }, (_, i) => leaf(`user:${i}`, BigInt(i), i))
    expect(buildTree(leaves).root.hash).toEqual(buildTree([...leaves].reverse()).root.hash)
    const first = buildTree(leaves).levels[0]!
    for (let i = 1; i < first.length; i++)
      expect(Buffer.compare(first[i - 1]!.hash, first[i]!.hash)).toBeLessThan(0)
  })

  it('pads an odd level with the zero node; an empty tree has the zero root', () => {
    const [a, b, c] = [leaf('x', 1n, 1), leaf('y', 2n, 2), leaf('z', 3n, 3)]
    const tree = buildTree([a, b, c])
    const [l0, l1, l2] = tree.levels[0]!
    expect(tree.root).toEqual(parent(parent(l0!, l1!), parent(l2!, PADDING)))
    expect(buildTree([]).root).toEqual(EMPTY_ROOT)
    expect(EMPTY_ROOT.hash).toEqual(Buffer.alloc(32))
  })

  it('refuses a negative balance and a sum beyond 2^256-1', () => {
    expect(() => leafHash({ id: 'x', balance: -1n, salt: salt(1) })).toThrow(RangeError)
    expect(() => buildTree([{ hash: Buffer.alloc(32, 1), sum: -1n }])).toThrow(RangeError)
    const max = (1n << 256n) - 1n
    expect(() => parent({ hash: Buffer.alloc(32), sum: max }, { hash: Buffer.alloc(32), sum: 1n })).toThrow(
      RangeError,
    )
    expect(u256(max).toString('hex')).toBe('f'.repeat(64))
  })

  it('a changed balance or a changed sibling no longer leads to the root', () => {
    const leaves = Array.from({ length: 5 }, (_, i) => leaf(`user:${i}`, BigInt(i + 1), i))
    const tree = buildTree(leaves)
    const path = pathOf(tree.levels, 2)
    const l = tree.levels[0]![2]!
    expect(rootFrom({ ...l, sum: l.sum + 1n }, path).hash).not.toEqual(tree.root.hash)
    const bad = path.map((s, i) => (i === 1 ? { ...s, sum: s.sum + 1n } : s))
    expect(rootFrom(l, bad).hash).not.toEqual(tree.root.hash)
  })

  it('derives a salt per snapshot secret, coin and account', () => {
    const s1 = Buffer.alloc(32, 9)
    const s2 = Buffer.alloc(32, 8)
    expect(leafSalt(s1, 'usdc', 'user:a')).toHaveLength(32)
    expect(leafSalt(s1, 'usdc', 'user:a')).not.toEqual(leafSalt(s1, 'usdc', 'user:b'))
    expect(leafSalt(s1, 'usdc', 'user:a')).not.toEqual(leafSalt(s1, 'avax', 'user:a'))
    expect(leafSalt(s1, 'usdc', 'user:a')).not.toEqual(leafSalt(s2, 'usdc', 'user:a'))
  })

  it('derives the same salts in bulk as one by one (any label length, UTF-8, a secret of any size)', () => {
    const labels = ['user:a', 'escrow:é✓', `platform:treasury:${'x'.repeat(300)}`, '', 'user:a']
    for (const secret of [Buffer.alloc(32, 9), Buffer.alloc(0), Buffer.alloc(64, 7)]) {
      const bulk = leafSalts(secret, 'usdc')
      for (const id of labels) expect(bulk(id)).toEqual(leafSalt(secret, 'usdc', id))
    }
    expect(() => leafSalts(Buffer.alloc(65), 'usdc')).toThrow(RangeError)
  })

  it('orders by hash in byte order, also hashes that share their first bytes', () => {
    const hashes = Array.from({ length: 2000 }, (_, i) => {
      const h = Buffer.alloc(32, 0)
      // every fourth shares its first 6 bytes with another: the tie is broken on the whole hash
      h.writeUInt32BE(i % 500, 2)
      h.writeUInt32BE((i * 2654435761) % 2 ** 32, 28)
      if (i % 7 === 0) h[0] = 0xff
      return h
    })
    const expected = [...hashes].sort(Buffer.compare)
    expect(sortByHash(hashes, (h) => h)).toEqual(expected)
  })

  it('matches the test vector of docs/reserves.md', () => {
    const leaves = [
      { id: 'user:alice', balance: 100n, salt: Buffer.alloc(32, 1) },
      { id: 'user:bob', balance: 250n, salt: Buffer.alloc(32, 2) },
      { id: 'escrow:job-1', balance: 0n, salt: Buffer.alloc(32, 3) },
    ].map((l) => ({ hash: leafHash(l), sum: l.balance }))
    const tree = buildTree(leaves)
    expect(tree.root.sum).toBe(350n)
    expect(tree.root.hash.toString('hex')).toBe(VECTOR_ROOT)
  })
})

const VECTOR_ROOT = 'e9b95d0e46ec75b8c179e9c29564b3d8d81500b9acc5b31a77033afe9fa45e99'
