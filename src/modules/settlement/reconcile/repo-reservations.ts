// The SQL of the reservation invariants (reservations.ts): open outgoing transfers against the
// pending ledger holds that reserve them, and withdrawals' fee holds against their withdrawals.
// Each is one statement, so it reads one snapshot.
import { sql } from 'kysely'
import type { Executor } from '../../../db/index.ts'

const OPEN = sql`('queued', 'signed', 'sent')`
const WITHDRAWAL_OPEN = sql`('pending', 'processing')`

export const reservationRepo = {
  /**
   * Open transfers from custodial addresses not reserved by exactly one pending hold of their
   * amount: no funding hold, a hold resolved already, or a hold of another amount or coin.
   */
  async transfersNotHeld(ex: Executor) {
    const { rows } = await sql<{
      id: string
      purpose: string
      coin: string
      amount: string
      holdId: string | null
      holdStatus: string | null
      holdCoin: string | null
      holdAmount: string | null
    }>`
      select t.id, t.purpose, t.coin, t.amount::text as amount,
             h.id as hold_id, h.status as hold_status, h.coin as hold_coin, h.amount::text as hold_amount
      from outgoing_transfers t
      left join ledger_holds h on h.id = t.funding_hold_id
      where t.status in ${OPEN} and t.from_kind <> 'platform'
        and (h.id is null or h.status <> 'pending' or h.coin <> t.coin or h.amount <> t.amount)
      order by t.id`.execute(ex)
    return rows
  },

  /**
   * Withdrawals whose fee hold is not in the state their outcome gives it: pending (of exactly
   * the fee, in the withdrawal's coin) while the withdrawal or its transfer is open, posted in full
   * once the withdrawal completed, voided once it failed. A withdrawal with a fee whose transfer is
   * open and that has no fee hold is one too. (Withdrawals settled before fees had holds of their
   * own have none, and are not looked at once their transfer settled.)
   */
  async withdrawalFeesNotHeld(ex: Executor) {
    const { rows } = await sql<{
      id: string
      coin: string
      status: string
      fee: string
      transferStatus: string | null
      holdId: string | null
      holdStatus: string | null
      holdCoin: string | null
      holdAmount: string | null
      postedAmount: string | null
    }>`
      select w.id, w.coin, w.status, w.fee::text as fee, t.status as transfer_status,
             h.id as hold_id, h.status as hold_status, h.coin as hold_coin,
             h.amount::text as hold_amount, h.posted_amount::text as posted_amount
      from withdrawals w
      left join outgoing_transfers t on t.id = w.outgoing_id
      left join ledger_holds h on h.id = w.fee_hold_id
      where (w.fee_hold_id is not null or (w.fee > 0 and t.status in ${OPEN}))
        and (h.id is null or h.coin <> w.coin or h.amount <> w.fee
             or case
                  when t.status in ${OPEN} or w.status in ${WITHDRAWAL_OPEN} then h.status <> 'pending'
                  when w.status = 'completed' then h.status <> 'posted' or h.posted_amount <> w.fee
                  else h.status <> 'voided'
                end)
      order by w.id`.execute(ex)
    return rows
  },

  /**
   * Pending holds no owner declares: neither the funding nor the gas hold of an open transfer, nor
   * a withdrawal's fee hold (whose state `withdrawalFeesNotHeld` checks against the withdrawal),
   * nor the hold of an open reorganisation finding.
   */
  async holdsWithoutOwner(ex: Executor) {
    const { rows } = await sql<{ id: string; accountId: string; coin: string; amount: string; kind: string }>`
      select h.id, h.account_id, h.coin, h.amount::text as amount, h.kind
      from ledger_holds h
      where h.status = 'pending'
        and not exists (select 1 from outgoing_transfers t
                        where (t.funding_hold_id = h.id or t.gas_hold_id = h.id) and t.status in ${OPEN})
        and not exists (select 1 from withdrawals w where w.fee_hold_id = h.id)
        and not exists (select 1 from reorg_findings r where r.hold_id = h.id and r.status = 'open')
      order by h.id`.execute(ex)
    return rows
  },
}
