// Record identifiers: 24 hexadecimal characters (4 bytes of seconds, 5 random bytes fixed per
// process, 3 bytes of counter), so they sort roughly by creation time like the ids clients know.
import { randomBytes, randomInt } from 'node:crypto'

const processRandom = randomBytes(5)
let counter = randomInt(0, 0xffffff)

export function newId(now: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000
  const buf = Buffer.alloc(12)
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0)
  processRandom.copy(buf, 4)
  buf.writeUIntBE(counter, 9, 3)
  return buf.toString('hex')
}

/** The smallest id `newId` can make at `at` or later: ids sort by their second of creation. */
export function firstIdAt(at: Date): string {
  return `${(Math.floor(at.getTime() / 1000) >>> 0).toString(16).padStart(8, '0')}${'0'.repeat(16)}`
}

export const ID_PATTERN = '^[0-9a-f]{24}$'

export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value)
}
