// "Where is my deposit?" for operators: settlement's lookup of a transaction hash with the owners'
// emails and each coin's decimals, and the audited request to read one address's block range again
// (settlement's rescan job credits what the watcher missed, once; the audit row commits with it).
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AccountModeration } from '../account/types.ts'
import { type DepositDesk, MAX_RESCAN_BLOCKS } from '../settlement/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminDeposits {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      desk: DepositDesk
      chain: Pick<ChainAdapter, 'coins'>
      moderation: Pick<AccountModeration, 'emails'>
      audit: AdminAudit
    },
  ) {}

  #decimals(coin: string): number | null {
    return this.deps.chain.coins.find((c) => c.reference === coin)?.decimals ?? null
  }

  async lookup(txHash: string) {
    const found = await this.deps.desk.lookup(txHash)
    const emails = await this.deps.moderation.emails(
      this.deps.db,
      found.deposits.filter((d) => d.ownerKind === 'user').map((d) => d.ownerId),
    )
    return {
      ...found,
      deposits: found.deposits.map((d) => ({
        ...d,
        email: d.ownerKind === 'user' ? (emails.get(d.ownerId) ?? null) : null,
        decimals: this.#decimals(d.coin),
      })),
    }
  }

  async rescan(
    actor: AdminActor,
    r: { address: string; coin: string; fromBlock: string; toBlock: string; reason: string },
  ) {
    const coin = r.coin.toLowerCase()
    if (!this.deps.chain.coins.some((c) => c.reference === coin))
      throw errors.field('/coin', `unknown coin ${r.coin}`)
    const from = BigInt(r.fromBlock)
    const to = BigInt(r.toBlock)
    if (from > to) throw errors.field('/fromBlock', 'must not be after toBlock')
    if (to - from + 1n > BigInt(MAX_RESCAN_BLOCKS))
      throw errors.field('/toBlock', `at most ${MAX_RESCAN_BLOCKS} blocks at a time`)
    const read = await this.deps.desk.watcherBlock()
    if (read === null || to > read)
      throw errors.field(
        '/toBlock',
        `the watcher has read up to block ${read ?? 'none'}; later blocks are read by the watcher itself`,
      )
    if (!(await this.deps.desk.isCustodial(r.address)))
      throw errors.field('/address', 'not an address of the platform')
    const address = r.address.toLowerCase()
    const queuedAt = this.deps.clock.now()
    return this.deps.db.transaction().execute(async (tx) => {
      const auditId = await this.deps.audit.record(tx, actor, {
        action: 'deposit.rescan',
        targetType: 'address',
        targetId: address,
        reason: r.reason,
        details: { coin, fromBlock: r.fromBlock, toBlock: r.toBlock },
      })
      const jobId = await this.deps.desk.requestRescan(tx, {
        address,
        coin,
        fromBlock: from,
        toBlock: to,
        requestId: auditId,
      })
      return { jobId, address, coin, fromBlock: from.toString(), toBlock: to.toString(), queuedAt }
    })
  }
}
