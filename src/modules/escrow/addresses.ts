// A user's wallet address, where an escrow's payouts and refunds go: their custodial key's, made in
// the caller's transaction the first time one is needed.
import type { Db, Tx } from '../../db/index.ts'
import type { EscrowKeys } from './ports.ts'

export class UserAddresses {
  constructor(private readonly keys: EscrowKeys) {}

  /**
   * The user's address read outside a transaction: the committed one (kept by the key store once
   * read), or a key made in a transaction of its own when the user has none yet.
   */
  async committedAddress(db: Db, userId: string): Promise<string> {
    const known = await this.keys.address(db, 'user', userId)
    if (known) return known
    return db.transaction().execute((tx) => this.userAddress(tx, userId))
  }

  async userAddress(tx: Tx, userId: string): Promise<string> {
    const key = await this.keys.find(tx, 'user', userId)
    if (key) return key.address
    return (await this.keys.ensure(tx, 'user', userId)).address
  }
}
