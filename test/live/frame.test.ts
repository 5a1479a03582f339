// The frame a push is written to every socket in is the one ws itself would send for the message:
// a text frame, unmasked, its length in 7, 16 or 64 bits.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { textFrame } from '../../src/modules/live/hub.ts'

const { Sender } = createRequire(import.meta.url)('ws') as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] }
}

describe('a push’s frame', () => {
  it.each([0, 1, 125, 126, 127, 65_535, 65_536, 200_000])('is ws’s own for %i bytes', (n) => {
    const payload = Buffer.alloc(n, 'x')
    const ws = Buffer.concat(
      Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false }),
    )
    expect(textFrame(payload).equals(ws)).toBe(true)
  })
})
