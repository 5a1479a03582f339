// @ts-check
// Cells the console's lists share: a shortened code, an amount in its coin, a state badge, an age,
// a row's id and USD.
import { h } from './dom.js'
import { age, amount, short, since } from './format.js'

/** @param {unknown} v @param {number} [n] */
export const code = (v, n) => (v ? h('code', { title: String(v) }, short(v, n)) : '—')
/** @param {any} row @param {string} [field] */
export const money = (row, field = 'amount') => amount(row[field], row.coin, row.decimals ?? undefined)
/** @param {unknown} v */
export const state = (v) =>
  v ? h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v)) : '—'
/** @param {any} row */
export const ageOf = (row) => age(row.ageSeconds ?? since(row.createdAt))
/** @param {any} row */
export const idOf = (row) => row.id ?? row._id
/** @param {unknown} v */
export const usd = (v) => (typeof v === 'number' ? `$${v.toFixed(2)}` : '—')
