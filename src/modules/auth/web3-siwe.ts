// Pure pieces of Sign-In with Ethereum: address parsing, the EIP-4361 message we issue, and the
// signature check that needs no chain (EIP-191 personal_sign recovered with ECDSA).
import { randomBytes } from 'node:crypto'
import { type Address, getAddress, type Hex, isAddress, verifyMessage } from 'viem'
import { createSiweMessage, parseSiweMessage } from 'viem/siwe'

/** The fixed approval sentence: the EIP-4361 statement of every message we issue. */
export const SIWE_STATEMENT = 'Approve this request to sign in to WorkPay.'

/** Used when no chain is configured: the id of a local development EVM. */
export const DEFAULT_CHAIN_ID = 31337

/**
 * The EIP-55 form of a wallet address, or undefined. All lower-case is accepted as "no checksum";
 * any upper-case letter means the client claims a checksum, which must then be right.
 */
export function parseAddress(raw: string): Address | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) return undefined
  if (!isAddress(raw, { strict: true })) return undefined
  return getAddress(raw)
}

/** EIP-4361 nonces are alphanumeric, at least 8 characters; 128 random bits in hex. */
export function newSiweNonce(): string {
  return randomBytes(16).toString('hex')
}

export function buildSiweMessage(input: {
  publicUrl: string
  address: Address
  chainId: number
  nonce: string
  issuedAt: Date
  expirationTime: Date
}): string {
  const url = new URL(input.publicUrl)
  return createSiweMessage({
    domain: url.host,
    uri: input.publicUrl,
    address: input.address,
    statement: SIWE_STATEMENT,
    version: '1',
    chainId: input.chainId,
    nonce: input.nonce,
    issuedAt: input.issuedAt,
    expirationTime: input.expirationTime,
  })
}

/** The Expiration Time written into a message we issued (undefined when it has none). */
export function messageExpiry(message: string): Date | undefined {
  return parseSiweMessage(message).expirationTime
}

/** True when `signature` is an EIP-191 signature of `message` by the key of `address`. */
export async function isEoaSignature(address: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return await verifyMessage({ address, message, signature })
  } catch {
    // Bytes that are not a signature at all (wrong length, bad recovery id) are just "not valid".
    return false
  }
}
