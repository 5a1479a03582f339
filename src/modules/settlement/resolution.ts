// How an operator's resolution of an open finding (a reorganisation's, a restored copy's platform
// transfer) is recorded: the same four columns in each finding table.

/** An operator's resolution of an open finding. */
export interface Resolution<S extends string> {
  status: S
  by: string
  reason: string
  at: Date
}

/** The columns a finding table records a resolution in. */
export const resolvedColumns = <S extends string>(r: Resolution<S>) => ({
  status: r.status,
  resolvedBy: r.by,
  resolveReason: r.reason,
  resolvedAt: r.at,
})
