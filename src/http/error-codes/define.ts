// The shape of one entry of the error catalogue, shared by the per-area code lists.

/** One named error: the HTTP status it answers, what it means and what a client should do. */
export interface ErrorCodeInfo<S extends number = number> {
  status: S
  /** one line: what happened */
  description: string
  /** one line: what a client should do about it */
  action: string
}

/** An entry of the catalogue, its status kept as a literal type. */
export const code = <S extends number>(status: S, description: string, action: string): ErrorCodeInfo<S> => ({
  status,
  description,
  action,
})
