// The bounded map of values kept once known: the oldest stored goes first, and storing a key again
// makes it the newest without pushing another out.
import { describe, expect, it } from 'vitest'
import { Kept } from '../../src/platform/kept.ts'

describe('Kept', () => {
  it('keeps at most max entries, the oldest stored going first', () => {
    const kept = new Kept<number>(2)
    kept.set('a', 1)
    kept.set('b', 2)
    kept.set('a', 3)
    expect(kept.size).toBe(2)
    expect(kept.get('a')).toBe(3)
    kept.set('c', 4)
    expect(kept.has('b')).toBe(false)
    expect([kept.get('a'), kept.get('c')]).toEqual([3, 4])
    kept.delete('a')
    expect(kept.has('a')).toBe(false)
    expect(kept.size).toBe(1)
  })
})
