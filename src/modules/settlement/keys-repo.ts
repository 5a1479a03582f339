// The SQL of the custodial key store (`wallet_keys`).
import type { Executor, Tx } from '../../db/index.ts'
import type { KeyOwnerKind } from '../../db/tables/wallet.ts'

const columns = ['id', 'ownerKind', 'ownerId', 'address', 'exportedAt'] as const

export const keysRepo = {
  /** Stores a new key unless the owner has one already (then nothing happens). */
  async insertIfAbsent(
    tx: Tx,
    row: {
      id: string
      ownerKind: KeyOwnerKind
      ownerId: string
      address: string
      sealedKey: string
      createdAt: Date
    },
  ): Promise<void> {
    await tx
      .insertInto('walletKeys')
      .values(row)
      .onConflict((oc) => oc.columns(['ownerKind', 'ownerId']).doNothing())
      .execute()
  },

  byOwner(ex: Executor, ownerKind: KeyOwnerKind, ownerId: string) {
    return ex
      .selectFrom('walletKeys')
      .select(columns)
      .where('ownerKind', '=', ownerKind)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
  },

  byAddress(ex: Executor, address: string) {
    return ex.selectFrom('walletKeys').select(columns).where('address', '=', address).executeTakeFirst()
  },

  byAddresses(ex: Executor, addresses: string[]) {
    return ex.selectFrom('walletKeys').select(columns).where('address', 'in', addresses).execute()
  },

  page(ex: Executor, after: string, limit: number) {
    return ex
      .selectFrom('walletKeys')
      .select(columns)
      .where('address', '>', after)
      .orderBy('address')
      .limit(limit)
      .execute()
  },

  sealed(ex: Executor, address: string) {
    return ex
      .selectFrom('walletKeys')
      .select(['address', 'sealedKey'])
      .where('address', '=', address)
      .executeTakeFirst()
  },

  async markExported(ex: Executor, id: string, at: Date): Promise<void> {
    await ex
      .updateTable('walletKeys')
      .set({ exportedAt: at })
      .where('id', '=', id)
      .where('exportedAt', 'is', null)
      .execute()
  },
}
