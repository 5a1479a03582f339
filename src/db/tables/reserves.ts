// Table types of the reserves module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

export interface ReserveSnapshotsTable {
  id: string
  /** the snapshots of one run share it (one per coin, same block) */
  runId: string
  chainId: string
  coin: string
  /** `native`, or the token contract (lower case) */
  asset: string
  decimals: number
  blockNumber: number
  blockHash: string
  takenAt: Timestamp
  /** 0x + 64 hex */
  rootHash: string
  liabilitiesTotal: Units
  reservesTotal: Units
  leafCount: number
  /** the attestation message (signed by the platform and by every reserve address) */
  message: string
  signature: string
  attestationAddress: string
  /** the snapshot's salt secret, sealed by the secret box; never published */
  sealedSecret: string
  trigger: 'schedule' | 'operator'
  requestedBy: string | null
}

export interface ReserveAddressesTable {
  snapshotId: string
  address: string
  balance: Units
  signature: string
}

export interface ReserveNodesTable {
  snapshotId: string
  level: number
  idx: number
  /** 64 hex, no 0x */
  hash: string
  sum: Units
}

export interface ReserveLeavesTable {
  snapshotId: string
  idx: number
  /** `user:<id>`, `escrow:<id>`, `platform:<kind>:<owner>` */
  label: string
  /** the wallet's owner, or the escrow's payer */
  userId: string | null
  /** the escrow's receiver */
  receiverId: string | null
}

export interface ReserveTables {
  reserveSnapshots: ReserveSnapshotsTable
  reserveAddresses: ReserveAddressesTable
  reserveNodes: ReserveNodesTable
  reserveLeaves: ReserveLeavesTable
}
