// @ts-check
// The admin API's lists as the console shows them: where each list is, its filters, its columns
// and each row's actions (every action asks for a reason; the audit log keeps it).

import { ageOf, code, idOf, money, state } from './cells.js'
import { coinsResource } from './coins.js'
import { copyable } from './copy.js'
import { depositsResource } from './deposits.js'
import { disputesResource } from './disputes.js'
import { h } from './dom.js'
import { feesResource } from './fees.js'
import { coinFilter, dateRange, idFilter, orderFilter, statusFilter } from './filters.js'
import { short, time } from './format.js'
import { detailLink, plainLink, userLink } from './links.js'
import { reorgsResource } from './reorgs.js'
import { reservesResource } from './reserves.js'
import { parkedJobsResource, platformTransfersResource } from './restore.js'
import { verificationsResource } from './verifications.js'

// Row types come from the published client (clients/typescript), checked by `tsc -p src/admin-console`.
/** @typedef {import('../../../clients/typescript/index.ts').AdminTransfer} AdminTransfer */
/** @typedef {import('../../../clients/typescript/index.ts').AdminWithdrawal} AdminWithdrawal */
/** @typedef {import('../../../clients/typescript/index.ts').AdminUser} AdminUser */
/** @typedef {import('../../../clients/typescript/index.ts').AdminAuditRecord} AdminAuditRecord */
/**
 * A list's columns over rows of type T.
 * @template T
 * @typedef {Array<{ label: string, num?: boolean, cell: (row: T) => string | Node }>} Columns
 */

/** What the customer is told when an operator cancels their money movement (the reason is not). */
const customerMessageField = () => [
  {
    name: 'customerMessage',
    label: 'Message to the customer (optional)',
    required: false,
    hint: 'Shown in their record, mail and notification. Without it they read "cancelled by the platform". The reason below is never shown to them.',
  },
]
const withCustomerMessage = (values) => {
  const message = String(values.customerMessage ?? '').trim()
  return { reason: values.reason, ...(message ? { customerMessage: message } : {}) }
}
/** Audit targets that have a detail page. */
const DETAIL_TARGETS = ['user', 'transfer', 'withdrawal', 'dispute']

export const resources = [
  {
    id: 'transfers',
    key: 't',
    title: 'Outgoing transfers',
    intro:
      'Every transfer the platform signs (withdrawals, escrow payouts, fee sweeps, gas top-ups). An open one can be run again now, a signed one replaced with higher fees, or cancelled with its value returned once nothing of it can be mined.',
    path: '/v1/admin/transfers',
    filters: [
      statusFilter(['open', 'failing', 'queued', 'signed', 'sent', 'failed', 'completed']),
      { name: 'purpose', label: 'Purpose', type: 'search', placeholder: 'withdrawal, escrow.payout…' },
      coinFilter(),
      { name: 'referenceId', label: 'Reference id', type: 'search', placeholder: 'withdrawal or leg id' },
      ...dateRange(),
      orderFilter(),
    ],
    rowLabel: (r) => `transfer ${short(idOf(r), 8)}`,
    columns: /** @type {Columns<AdminTransfer>} */ ([
      { label: 'Transfer', cell: (r) => detailLink('transfer', idOf(r)) },
      { label: 'Purpose', cell: (r) => r.purpose },
      { label: 'Amount', num: true, cell: (r) => money(r) },
      { label: 'To', cell: (r) => copyable(r.to, 10) },
      {
        label: 'State',
        cell: (r) =>
          r.waitingForFee
            ? h(
                'span',
                {},
                state(r.status),
                ' ',
                h('span', { class: 'muted' }, 'waiting: fee above the coin maximum'),
              )
            : state(r.status),
      },
      { label: 'Age', num: true, cell: ageOf },
      {
        label: 'Failed tries',
        num: true,
        // counted toward the limit of 5 / recorded (a provider's outages are recorded, not counted)
        cell: (r) => `${r.failures ?? 0} / ${r.attempts ?? r.failures ?? 0}`,
      },
      { label: 'Last error', cell: (r) => r.lastError ?? '' },
    ]),
    actions: [
      {
        label: 'Run now',
        when: (r) => r.actions?.retry,
        path: (r) => `/v1/admin/transfers/${idOf(r)}/retry`,
        text: () => 'Runs the transfer again now instead of at its next scheduled look.',
      },
      {
        label: 'Replace',
        when: (r) => r.actions?.replace,
        path: (r) => `/v1/admin/transfers/${idOf(r)}/replace`,
        text: () =>
          'Signs the same transfer at the same nonce with fees at least 12.5 % higher; whichever is mined settles it.',
      },
      {
        label: 'Cancel',
        confirm: 'Cancel the transfer',
        danger: true,
        when: (r) => r.actions?.cancel,
        path: (r) => `/v1/admin/transfers/${idOf(r)}/cancel`,
        text: (r) =>
          `${money(r)} (${r.purpose}) to ${r.to}. Only while nothing of it was signed: the transfer fails and its value goes back to the account that funded it, exactly once.`,
        fields: customerMessageField,
        body: withCustomerMessage,
      },
    ],
  },
  {
    id: 'withdrawals',
    key: 'w',
    title: 'Withdrawals',
    intro:
      "Users' withdrawals with the transfer carrying each. An open one can be sent again now, replaced with higher fees once signed, or cancelled before it is signed: the amount and fee go back to the wallet, exactly once.",
    path: '/v1/admin/withdrawals',
    filters: [
      statusFilter(['failing', 'pending', 'processing', 'completed', 'failed']),
      coinFilter(),
      idFilter(),
      ...dateRange(),
      orderFilter(),
    ],
    rowLabel: (r) => `withdrawal ${short(idOf(r), 8)}`,
    columns: /** @type {Columns<AdminWithdrawal>} */ ([
      { label: 'Withdrawal', cell: (r) => detailLink('withdrawal', idOf(r)) },
      { label: 'User', cell: (r) => userLink(r.userId, r.email) },
      { label: 'Amount', num: true, cell: (r) => money(r) },
      { label: 'Fee', num: true, cell: (r) => money(r, 'fee') },
      { label: 'Address', cell: (r) => copyable(r.address, 10) },
      { label: 'State', cell: (r) => state(r.status) },
      { label: 'Attempts', num: true, cell: (r) => String(r.retryCount ?? 0) },
      { label: 'Age', num: true, cell: ageOf },
      { label: 'Last error', cell: (r) => r.lastError ?? '' },
    ]),
    actions: [
      {
        label: 'Retry',
        when: (r) => r.actions?.retry,
        path: (r) => `/v1/admin/withdrawals/${idOf(r)}/retry`,
        text: () => "Runs the withdrawal's transfer again now instead of at its next scheduled attempt.",
      },
      {
        label: 'Replace',
        when: (r) => r.actions?.replace,
        path: (r) => `/v1/admin/withdrawals/${idOf(r)}/replace`,
        text: () => 'Signs the same transfer at the same nonce with fees at least 12.5 % higher.',
      },
      {
        label: 'Cancel',
        confirm: 'Cancel the withdrawal',
        danger: true,
        when: (r) => r.actions?.cancel,
        path: (r) => `/v1/admin/withdrawals/${idOf(r)}/cancel`,
        text: (r) =>
          `${money(r)} (fee ${money(r, 'fee')}) of ${r.email ?? r.userId} to ${r.address}. Only while nothing of it was signed: fails the withdrawal and gives the amount and fee back to the wallet, exactly once.`,
        fields: customerMessageField,
        body: withCustomerMessage,
      },
    ],
  },
  {
    id: 'escrow',
    key: 'e',
    title: 'Escrow payout legs',
    intro:
      "Each release of an escrow pays legs (the worker's payout, fees); an escrow's failed legs can be sent again.",
    path: '/v1/admin/escrow-legs',
    filters: [
      statusFilter(['failing', 'awaiting', 'processing', 'completed', 'failed']),
      {
        name: 'kind',
        label: 'Kind',
        type: 'select',
        options: ['', 'payout', 'fee', 'platformFee', 'refund', 'fund'],
      },
      coinFilter(),
      idFilter('escrow', 'Escrow id', 'escrow id'),
      ...dateRange(),
    ],
    rowLabel: (r) => `escrow ${short(r.escrowId, 8)}`,
    columns: [
      { label: 'Leg', cell: (r) => copyable(idOf(r)) },
      { label: 'Escrow', cell: (r) => detailLink('escrow', r.escrowId) },
      { label: 'Kind', cell: (r) => r.kind },
      { label: 'Amount', num: true, cell: (r) => money(r) },
      { label: 'To', cell: (r) => copyable(r.to, 10) },
      { label: 'State', cell: (r) => state(r.status) },
      { label: 'Failures', num: true, cell: (r) => String(r.failures ?? 0) },
      { label: 'Age', num: true, cell: ageOf },
      { label: 'Last error', cell: (r) => r.lastError ?? '' },
    ],
    actions: [
      {
        label: 'Retry',
        when: (r) => r.actions?.retry,
        path: (r) => `/v1/admin/escrow-legs/${idOf(r)}/retry`,
        text: (r) =>
          r.status === 'failed'
            ? "Sends every failed payout leg of this escrow again (new transfers, the escrow's value)."
            : "Runs the leg's transfer again now instead of at its next scheduled attempt.",
      },
      {
        label: 'Replace',
        when: (r) => r.actions?.replace,
        path: (r) => `/v1/admin/escrow-legs/${idOf(r)}/replace`,
        text: () => 'Signs the same transfer at the same nonce with fees at least 12.5 % higher.',
      },
      {
        label: 'Cancel',
        danger: true,
        when: (r) => r.actions?.cancel,
        path: (r) => `/v1/admin/escrow-legs/${idOf(r)}/cancel`,
        text: () => 'Only while nothing of it was signed: the leg fails and its value stays in the escrow.',
      },
    ],
  },
  disputesResource,
  {
    id: 'users',
    key: 'u',
    title: 'Users',
    intro:
      'Every account: find one by email, name, id or wallet address; suspend it (logged out everywhere, no money moves) or change its role.',
    path: '/v1/admin/users',
    filters: [
      { name: 'q', label: 'Search', type: 'search', placeholder: 'email, name, id or address' },
      {
        name: 'role',
        label: 'Role',
        type: 'select',
        options: ['', 'admin', 'finance', 'support', 'user'],
      },
      { name: 'suspended', label: 'Suspended', type: 'select', options: ['', 'true', 'false'] },
      ...dateRange(),
    ],
    rowLabel: (r) => r.email ?? short(idOf(r), 8),
    columns: /** @type {Columns<AdminUser>} */ ([
      { label: 'Email', cell: (r) => (r.email ? plainLink('user', idOf(r), r.email) : '—') },
      { label: 'Id', cell: (r) => detailLink('user', idOf(r)) },
      { label: 'Name', cell: (r) => `${r.firstName ?? ''} ${r.lastName ?? ''}`.trim() },
      { label: 'Role', cell: (r) => r.role },
      { label: 'Two-factor', cell: (r) => (r.twoFaEnabled ? r.twoFaType : 'off') },
      { label: 'State', cell: (r) => state(r.suspended ? 'suspended' : 'active') },
      { label: 'Last login', cell: (r) => time(r.lastLoginAt) },
    ]),
    actions: [
      {
        label: 'Suspend',
        danger: true,
        when: (r) => !r.suspended,
        path: (r) => `/v1/admin/users/${idOf(r)}/suspend`,
        text: () => 'The user is logged out everywhere at once and can neither log in nor move money.',
      },
      { label: 'Unsuspend', when: (r) => r.suspended, path: (r) => `/v1/admin/users/${idOf(r)}/unsuspend` },
      {
        label: 'Set role',
        path: (r) => `/v1/admin/users/${idOf(r)}/role`,
        text: (r) =>
          `${r.email ?? idOf(r)} is ${r.role}. admin: everything; finance: read, move and stop money; support: read, act for customers; user: no operator role. Their unlocked sessions end; the new role applies from their next second factor.`,
        fields: (r) => [
          {
            name: 'role',
            label: 'New role',
            type: 'select',
            value: r.role,
            options: ['admin', 'finance', 'support', 'user'].map((v) => ({ value: v, label: v })),
          },
        ],
      },
      {
        label: 'Clear second factor',
        danger: true,
        path: (r) => `/v1/admin/users/${idOf(r)}/second-factor/reset`,
        text: (r) =>
          `For a lost phone or a passkey to rotate: ${r.email ?? idOf(r)} is signed out everywhere at once and sets up a new factor at the next sign-in. Check who is asking through another channel first.`,
        fields: () => [
          {
            name: 'factors',
            label: 'Clear',
            type: 'select',
            options: [
              { value: 'totp,passkeys', label: 'authenticator app and passkeys' },
              { value: 'totp', label: 'authenticator app only' },
              { value: 'passkeys', label: 'passkeys only' },
            ],
          },
        ],
        body: (v) => ({ reason: v.reason, factors: String(v.factors).split(',') }),
      },
    ],
  },
  depositsResource,
  coinsResource,
  feesResource,
  reorgsResource,
  platformTransfersResource,
  parkedJobsResource,
  reservesResource,
  verificationsResource,
  {
    id: 'audit',
    key: 'a',
    title: 'Audit log',
    intro:
      'Every admin action: who, what, on which record and why; and the events of settlement itself (actor `system`): chain reorganisations, coin halts and resumes, reorg findings, reconciliation.',
    path: '/v1/admin/audit',
    filters: [
      { name: 'action', label: 'Action', type: 'search', placeholder: 'e.g. user.suspend' },
      { name: 'targetType', label: 'Target type', type: 'search', placeholder: 'user, transfer, coin…' },
      { name: 'target', label: 'Target id', type: 'search' },
      ...dateRange(),
    ],
    exportPath: '/v1/admin/audit/export',
    rowLabel: (r) => `record ${short(idOf(r), 8)}`,
    columns: /** @type {Columns<AdminAuditRecord>} */ ([
      { label: 'When', cell: (r) => time(r.createdAt) },
      {
        label: 'Admin',
        cell: (r) => (r.actorId === 'system' ? 'system' : (r.actorEmail ?? code(r.actorId, 8))),
      },
      { label: 'Action', cell: (r) => h('code', {}, r.action) },
      {
        label: 'Target',
        cell: (r) =>
          DETAIL_TARGETS.includes(r.targetType)
            ? h('span', {}, `${r.targetType} `, detailLink(r.targetType, r.targetId, { n: 10 }))
            : `${r.targetType} ${short(r.targetId, 10)}`,
      },
      { label: 'Reason', cell: (r) => r.reason },
      { label: 'Request', cell: (r) => code(r.requestId, 8) },
    ]),
  },
]
