// What never changes about a ledger account, its kind and coin, remembered in process so that a
// transfer does not read it again: no statement changes either column once the row exists. Only
// rows read from the database are remembered; a remembered id that no longer exists (its creating
// transaction rolled back) is still refused by the transfer's statement, which locks every
// non-system row it changes and whose entries reference every account.

import { Kept } from '../../platform/kept.ts'
import type { LedgerAccountKind } from './types.ts'

export interface AccountShape {
  kind: LedgerAccountKind
  coin: string
}

export class AccountShapes {
  readonly #shapes: Kept<AccountShape>

  /** `max`: ids remembered at most (the oldest remembered are forgotten first) */
  constructor(max = 100_000) {
    this.#shapes = new Kept(max)
  }

  get(id: string): AccountShape | undefined {
    return this.#shapes.get(id)
  }

  remember(rows: readonly { id: string; kind: LedgerAccountKind; coin: string }[]) {
    for (const r of rows) if (!this.#shapes.has(r.id)) this.#shapes.set(r.id, { kind: r.kind, coin: r.coin })
  }

  forget(ids: readonly string[]) {
    for (const id of ids) this.#shapes.delete(id)
  }
}

/**
 * The id of the account (kind, owner, coin), remembered in process once the database answered it:
 * the triple is unique and an account is never deleted, so the id stays right. One the process
 * learned from a transaction that rolled back is corrected by the statement that uses it
 * (`ledger_write_holds` answers the row's own id, or opens the row under the remembered one).
 */
export class AccountIds {
  readonly #ids: Kept<string>

  constructor(max = 100_000) {
    this.#ids = new Kept(max)
  }

  static key(kind: LedgerAccountKind, ownerId: string, coin: string) {
    return `${kind}\u0000${ownerId}\u0000${coin}`
  }

  get(key: string): string | undefined {
    return this.#ids.get(key)
  }

  remember(key: string, id: string) {
    if (this.#ids.get(key) !== id) this.#ids.set(key, id)
  }
}
