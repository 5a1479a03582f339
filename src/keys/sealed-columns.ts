// Every column that holds a secret sealed by the secret box (src/platform/crypto/secrets.ts), with
// the associated data each was sealed with. Key rotation and its status read this list: a new
// sealed column is added here, or rotation would leave it under the old key-encryption key.

export interface SealedColumn {
  /** `table.column`, as rotation reports it */
  name: string
  table: string
  /** a unique, orderable column identifying the row */
  id: string
  column: string
  /** the column the associated data is built from */
  bound: string
  aad(bound: string): string
}

export const sealedColumns: readonly SealedColumn[] = [
  {
    name: 'wallet_keys.sealed_key',
    table: 'wallet_keys',
    id: 'id',
    column: 'sealed_key',
    bound: 'address',
    aad: (address) => `wallet-key:${address.toLowerCase()}`,
  },
  {
    name: 'users.two_fa_secret',
    table: 'users',
    id: 'id',
    column: 'two_fa_secret',
    bound: 'id',
    aad: (userId) => `totp:${userId}`,
  },
  {
    name: 'two_fa_setups.secret',
    table: 'two_fa_setups',
    id: 'user_id',
    column: 'secret',
    bound: 'user_id',
    aad: (userId) => `totp:${userId}`,
  },
  {
    name: 'webhook_endpoints.secret_sealed',
    table: 'webhook_endpoints',
    id: 'id',
    column: 'secret_sealed',
    bound: 'id',
    aad: (endpointId) => `webhook:${endpointId}`,
  },
  {
    name: 'reserve_snapshots.sealed_secret',
    table: 'reserve_snapshots',
    id: 'id',
    column: 'sealed_secret',
    bound: 'id',
    aad: (snapshotId) => `reserves:${snapshotId}`,
  },
  {
    name: 'webhook_endpoints.previous_secret_sealed',
    table: 'webhook_endpoints',
    id: 'id',
    column: 'previous_secret_sealed',
    bound: 'id',
    aad: (endpointId) => `webhook:${endpointId}`,
  },
]

/** The key id a sealed secret names (`v1.<keyId>.<wrapped>.<body>`), or undefined when malformed. */
export function sealedKeyId(sealed: string): string | undefined {
  const [version, keyId] = sealed.split('.')
  return version === 'v1' && keyId ? keyId : undefined
}
