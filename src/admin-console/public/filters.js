// @ts-check
// Filters shared by the lists (resources.js and the lists beside it): coin, account, state, order
// and the creation window as UTC days (the API takes `from` inclusive and `to` exclusive times).

/** The start of the UTC day after `day` (YYYY-MM-DD): an inclusive last day as an exclusive bound. */
export const nextDay = (day) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString()

export const statusFilter = (options) => ({
  name: 'status',
  label: 'State',
  type: 'select',
  options: ['', ...options],
})

export const coinFilter = () => ({ name: 'coin', label: 'Coin', type: 'search', placeholder: 'avax, usdc' })

/** An id: the account (the API's `user`) by default, or another record (`escrow`, …). */
export const idFilter = (name = 'user', label = 'User id', placeholder = 'account id') => ({
  name,
  label,
  type: 'search',
  placeholder,
})

/** From a first to a last UTC day, both included. */
export const dateRange = () => [
  { name: 'from', label: 'From (UTC day)', type: 'date', param: (day) => `${day}T00:00:00.000Z` },
  { name: 'to', label: 'To (UTC day, included)', type: 'date', param: nextDay },
]

/** Newest or oldest first; `fallback` is asked for when the operator picks nothing. */
export const orderFilter = (fallback = 'newest') => ({
  name: 'order',
  label: 'Order',
  type: 'select',
  default: fallback,
  options: [
    { value: 'newest', label: 'newest first' },
    { value: 'oldest', label: 'oldest first' },
  ],
})
