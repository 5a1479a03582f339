// The published format of a snapshot beyond the tree (docs/reserves.md, "Format"): leaf labels, the
// digest of the reserve list and the attestation message that the platform key and every reserve
// address sign.
import { createHash } from 'node:crypto'
import type { LedgerAccountKind } from '../ledger/types.ts'

export const MESSAGE_TITLE = 'WorkPay proof of reserves v1'

/** A leaf's label: what the account is, never shown to anyone but its owner. */
export function leafLabel(kind: LedgerAccountKind, ownerId: string): string {
  if (kind === 'user') return `user:${ownerId}`
  if (kind === 'escrow') return `escrow:${ownerId}`
  return `platform:${kind}:${ownerId}`
}

export type LeafKind = 'wallet' | 'escrow' | 'platform'

export function kindOfLabel(label: string): LeafKind {
  if (label.startsWith('user:')) return 'wallet'
  if (label.startsWith('escrow:')) return 'escrow'
  return 'platform'
}

/** `native`, or the token contract in lower case. */
export function assetOf(coin: { isToken: boolean; contractAddress: string | null }): string {
  return coin.isToken && coin.contractAddress ? coin.contractAddress.toLowerCase() : 'native'
}

/** sha256 over `<address>:<balance>\n` per reserve address, addresses (lower case) ascending. */
export function reservesDigest(reserves: { address: string; balance: bigint }[]): string {
  const h = createHash('sha256')
  for (const r of [...reserves].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)))
    h.update(`${r.address.toLowerCase()}:${r.balance.toString()}\n`, 'utf8')
  return `0x${h.digest('hex')}`
}

export interface AttestedFields {
  id: string
  chainId: string
  coin: string
  asset: string
  block: string
  blockHash: string
  takenAt: Date
  /** 0x + 64 hex */
  root: string
  liabilitiesTotal: bigint
  leafCount: number
  reservesTotal: bigint
  reservesDigest: string
}

/** The text signed (EIP-191 personal_sign) by the attestation key and by each reserve address. */
export function attestationMessage(f: AttestedFields): string {
  return [
    MESSAGE_TITLE,
    `snapshot: ${f.id}`,
    `chain id: ${f.chainId}`,
    `coin: ${f.coin}`,
    `asset: ${f.asset}`,
    `block: ${f.block}`,
    `block hash: ${f.blockHash.toLowerCase()}`,
    `taken at: ${f.takenAt.toISOString()}`,
    `liabilities root: ${f.root}`,
    `liabilities total: ${f.liabilitiesTotal.toString()}`,
    `leaves: ${f.leafCount}`,
    `reserves total: ${f.reservesTotal.toString()}`,
    `reserves digest: ${f.reservesDigest}`,
  ].join('\n')
}

/** reserves / liabilities as a decimal with 4 places, rounded down; null when nothing is owed. */
export function ratioOf(reserves: bigint, liabilities: bigint): string | null {
  if (liabilities === 0n) return null
  const scaled = (reserves * 10_000n) / liabilities
  return `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, '0')}`
}
