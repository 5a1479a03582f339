// What never changes about a ledger account, its kind and coin, remembered in process so that a
// transfer does not read it again: no statement changes either column once the row exists. Only
// rows read from the database are remembered; a remembered id that no longer exists (its creating
// transaction rolled back) is still refused by the transfer's statement, which locks every
// non-system row it changes and whose entries reference every account.
import type { LedgerAccountKind } from './types.ts'

export interface AccountShape {
  kind: LedgerAccountKind
  coin: string
}

export class AccountShapes {
  readonly #shapes = new Map<string, AccountShape>()

  /** `max`: ids remembered at most (the oldest remembered are forgotten first) */
  constructor(private readonly max = 100_000) {}

  get(id: string): AccountShape | undefined {
    return this.#shapes.get(id)
  }

  remember(rows: readonly { id: string; kind: LedgerAccountKind; coin: string }[]) {
    for (const r of rows) {
      if (this.#shapes.has(r.id)) continue
      if (this.#shapes.size >= this.max) this.#shapes.delete(this.#shapes.keys().next().value!)
      this.#shapes.set(r.id, { kind: r.kind, coin: r.coin })
    }
  }

  forget(ids: readonly string[]) {
    for (const id of ids) this.#shapes.delete(id)
  }
}
