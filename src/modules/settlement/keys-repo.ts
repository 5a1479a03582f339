// The SQL of the custodial key store (`wallet_keys`).
import type { Executor, Tx } from '../../db/index.ts'
import type { KeyOwnerKind } from '../../db/tables/wallet.ts'

const columns = ['id', 'ownerKind', 'ownerId', 'address', 'exportedAt'] as const

/** A key's row as stored: its private key sealed (keys.ts). */
interface NewKeyRow {
  id: string
  ownerKind: KeyOwnerKind
  ownerId: string
  address: string
  sealedKey: string
  createdAt: Date
}

export const keysRepo = {
  /**
   * Stores a new key unless the owner has one already, in one statement: the stored key (the new
   * one, or the one already there, `row` then dropped). Undefined only when a concurrent
   * transaction stored the owner's key after this statement's snapshot was taken (the insert then
   * does nothing and the snapshot does not see that row): `byOwner` in a later statement finds it.
   */
  insertOrFind(tx: Tx, row: NewKeyRow) {
    return tx
      .with('ins', (db) =>
        db
          .insertInto('walletKeys')
          .values(row)
          .onConflict((oc) => oc.columns(['ownerKind', 'ownerId']).doNothing())
          .returning(columns),
      )
      .selectFrom('ins')
      .select(columns)
      .unionAll((eb) =>
        eb
          .selectFrom('walletKeys')
          .select(columns)
          .where('ownerKind', '=', row.ownerKind)
          .where('ownerId', '=', row.ownerId)
          .where((w) => w.not(w.exists(w.selectFrom('ins').select('ins.id')))),
      )
      .executeTakeFirst()
  },

  /** The insert of a new owner's key, built for the caller's statement (not executed). */
  insertNew(ex: Executor, row: NewKeyRow) {
    return ex.insertInto('walletKeys').values(row)
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
