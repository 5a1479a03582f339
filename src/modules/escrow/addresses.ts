// A user's wallet address, where an escrow's payouts and refunds go: their custodial key's, made in
// the caller's transaction the first time one is needed.
import type { Tx } from '../../db/index.ts'
import type { EscrowKeys } from './ports.ts'

export class UserAddresses {
  constructor(private readonly keys: EscrowKeys) {}

  async userAddress(tx: Tx, userId: string): Promise<string> {
    const key = await this.keys.find(tx, 'user', userId)
    if (key) return key.address
    return (await this.keys.ensure(tx, 'user', userId)).address
  }
}
