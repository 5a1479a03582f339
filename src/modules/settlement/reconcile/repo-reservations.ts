// The SQL of the reservation invariants (reservations.ts): open outgoing transfers against the
// pending ledger holds that reserve them. Each is one statement, so it reads one snapshot.
import { sql } from 'kysely'
import type { Executor } from '../../../db/index.ts'

const OPEN = sql`('queued', 'signed', 'sent')`

export const reservationRepo = {
  /**
   * Open transfers from custodial addresses not reserved by exactly one pending hold of their
   * amount and what their success posts besides (a withdrawal's fee): no funding hold, a hold
   * resolved already, or a hold of another amount or coin.
   */
  async transfersNotHeld(ex: Executor) {
    const { rows } = await sql<{
      id: string
      purpose: string
      coin: string
      amount: string
      reserves: string
      holdId: string | null
      holdStatus: string | null
      holdCoin: string | null
      holdAmount: string | null
    }>`
      select t.id, t.purpose, t.coin, t.amount::text as amount,
             (t.amount + coalesce(p.total, 0))::text as reserves,
             h.id as hold_id, h.status as hold_status, h.coin as hold_coin, h.amount::text as hold_amount
      from outgoing_transfers t
      left join ledger_holds h on h.id = t.funding_hold_id
      left join (select transfer_id, sum(amount) as total from outgoing_postings
                 where outcome = 'completed' group by transfer_id) p on p.transfer_id = t.id
      where t.status in ${OPEN} and t.from_kind <> 'platform'
        and (h.id is null or h.status <> 'pending' or h.coin <> t.coin
             or h.amount <> t.amount + coalesce(p.total, 0))
      order by t.id`.execute(ex)
    return rows
  },

  /**
   * Pending holds no open owner declares: neither the funding nor the gas hold of an open
   * transfer, nor the hold of an open reorganisation finding.
   */
  async holdsWithoutOwner(ex: Executor) {
    const { rows } = await sql<{ id: string; accountId: string; coin: string; amount: string; kind: string }>`
      select h.id, h.account_id, h.coin, h.amount::text as amount, h.kind
      from ledger_holds h
      where h.status = 'pending'
        and not exists (select 1 from outgoing_transfers t
                        where (t.funding_hold_id = h.id or t.gas_hold_id = h.id) and t.status in ${OPEN})
        and not exists (select 1 from reorg_findings r where r.hold_id = h.id and r.status = 'open')
      order by h.id`.execute(ex)
    return rows
  },
}
