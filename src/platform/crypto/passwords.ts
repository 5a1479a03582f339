// Password hashing with argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane) and
// the platform's password policy. Each hash or check takes a core for tens of milliseconds on the
// thread pool, which would run four at once: at most one fewer than the machine's cores run at
// once (one on a machine of two), so a burst of logins, withdrawals and wallet payments never takes
// the core the event loop answers every other request on. The others wait their turn.
import { availableParallelism } from 'node:os'
import { hash, verify as verifyHash } from '@node-rs/argon2'
import { Lanes } from '../lanes.ts'

const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const

/** the password hashes and checks this process runs at once */
export const passwordLanes = new Lanes(Math.max(1, availableParallelism() - 1))

export function hashPassword(password: string): Promise<string> {
  return passwordLanes.run(() => hash(password, OPTIONS))
}

const verify = (hashed: string, password: string) => passwordLanes.run(() => verifyHash(hashed, password))

// A fixed hash to verify against when the account does not exist, so a wrong email takes as long
// as a wrong password.
let dummyHash: Promise<string> | undefined

export async function verifyPassword(hashed: string | null | undefined, password: string): Promise<boolean> {
  if (!hashed) {
    dummyHash ??= hashPassword('not-a-real-password-Aa1!')
    await verify(await dummyHash, password).catch(() => false)
    return false
  }
  try {
    return await verify(hashed, password)
  } catch {
    return false
  }
}

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 128

/** Under 8 characters, or fewer than 3 of lower, upper, digit, symbol, is too weak. */
export function isStrongPassword(password: string): boolean {
  if (password.length < PASSWORD_MIN_LENGTH) return false
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(password)).length
  return classes >= 3
}
