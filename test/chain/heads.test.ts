// The head confirmations count from, when providers disagree: the lowest healthy head, never one
// that runs ahead, never back. Pure.
import { describe, expect, it } from 'vitest'
import { chooseHead, confirmedBlock } from '../../src/platform/chain/heads.ts'

const maxLag = 16n

describe('chooseHead', () => {
  it('takes the lowest head of the providers that answered', () => {
    expect(chooseHead([100n, 98n, 101n], { maxLag })).toEqual({
      head: 98n,
      healthy: [0, 1, 2],
      lagging: [],
      wentBack: false,
    })
  })

  it('a provider running ahead never counts', () => {
    expect(chooseHead([100n, 105n], { maxLag }).head).toBe(100n)
  })

  it('a provider far behind the others is lagging and left out', () => {
    expect(chooseHead([100n, 50n, 99n], { maxLag })).toEqual({
      head: 99n,
      healthy: [0, 2],
      lagging: [1],
      wentBack: false,
    })
  })

  it('a provider that failed or timed out is not counted', () => {
    expect(chooseHead([null, 70n], { maxLag }).head).toBe(70n)
    expect(chooseHead([null, null], { maxLag })).toMatchObject({ head: null, healthy: [] })
    expect(chooseHead([null, null], { maxLag, last: 40n })).toMatchObject({ head: 40n, healthy: [] })
  })

  it('a head below the last one used is ignored: the last head is kept', () => {
    expect(chooseHead([90n, 95n], { maxLag, last: 93n })).toEqual({
      head: 93n,
      healthy: [0, 1],
      lagging: [],
      wentBack: true,
    })
    expect(chooseHead([94n, 95n], { maxLag, last: 93n })).toMatchObject({ head: 94n, wentBack: false })
  })

  it('a liar far ahead makes the honest nodes look lagging only beyond maxLag', () => {
    // (the blocks past the honest head do not exist: the watcher cannot read them yet)
    expect(chooseHead([100n, 100n + maxLag], { maxLag }).head).toBe(100n)
    expect(chooseHead([100n, 101n + maxLag], { maxLag })).toMatchObject({ head: 101n + maxLag, lagging: [0] })
  })
})

describe('confirmedBlock', () => {
  it('counts the block itself', () => {
    expect(confirmedBlock(100n, 3)).toBe(98n)
    expect(confirmedBlock(100n, 1)).toBe(100n)
    expect(confirmedBlock(100n, 0)).toBe(100n)
    expect(confirmedBlock(1n, 5)).toBe(0n)
  })
})
