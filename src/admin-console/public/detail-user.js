// @ts-check
// A user's page: the account, its custodial address and balances, the newest deposits,
// withdrawals, escrows and jobs, its live sessions and what operators did to it (the audit log),
// with the suspension actions the operator's role allows.
import { openAction } from './actions.js'
import { call, get } from './api.js'
import { copyable } from './copy.js'
import { detailPage, facts, section, state } from './detail-common.js'
import { h } from './dom.js'
import { amount, time } from './format.js'
import { detailLink, txLink } from './links.js'
import { may } from './roles.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminUserOverview} AdminUserOverview */
/** @typedef {import('../../../clients/typescript/index.ts').AdminWithdrawal} AdminWithdrawal */
/** @typedef {import('../../../clients/typescript/index.ts').AdminAuditRecord} AdminAuditRecord */

const ROWS = 10

function suspendButton(u, reload) {
  const path = `/v1/admin/users/${u._id}/${u.suspended ? 'unsuspend' : 'suspend'}`
  if (!may(path)) return null
  const label = u.suspended ? 'Unsuspend' : 'Suspend'
  return h(
    'button',
    {
      type: 'button',
      class: ['small', u.suspended ? null : 'danger'],
      onclick: () =>
        openAction({
          title: `${label} ${u.email ?? u._id}`,
          text: u.suspended
            ? 'The account may log in again; its old sessions stay revoked.'
            : 'The user is logged out everywhere at once and can neither log in nor move money.',
          danger: !u.suspended,
          confirm: label,
          send: async (values) => (await call('POST', path, values)).message,
          done: reload,
        }),
    },
    label,
  )
}

/**
 * @param {HTMLElement} main
 * @param {string} id
 * @param {{ reload: () => void }} ctx
 */
export function renderUser(main, id, { reload }) {
  return detailPage(
    main,
    'User',
    async () => {
      const [overview, withdrawals, audit] = await Promise.all([
        /** @type {Promise<AdminUserOverview>} */ (get(`/v1/admin/users/${id}/overview`)),
        get(`/v1/admin/withdrawals?user=${id}&order=newest&limit=${ROWS}`),
        get(`/v1/admin/audit?target=${id}&limit=${ROWS}`),
      ])
      return { overview, withdrawals, audit }
    },
    ({ overview: o, withdrawals, audit }) => {
      const u = o.user
      const heading = main.querySelector('h1')
      if (heading) heading.textContent = `User ${u.email ?? u._id}`
      const name = `${u.firstName ?? ''} ${u.lastName ?? ''}`.trim()
      /** @type {AdminWithdrawal[]} */
      const ws = withdrawals.data ?? []
      /** @type {AdminAuditRecord[]} */
      const records = audit.data ?? []
      return [
        h('div', { class: 'toolbar' }, suspendButton(u, reload)),
        facts([
          ['Email', u.email],
          ['Id', copyable(u._id)],
          ['Name', name || null],
          ['User name', u.userName],
          ['Role', u.role],
          ['State', state(u.suspended ? 'suspended' : 'active')],
          ['Suspended', u.suspended ? `${time(u.suspendedAt)}: ${u.suspendedReason ?? ''}` : undefined],
          ['Verified email', u.isVerified ? 'yes' : 'no'],
          ['Two-factor', u.twoFaEnabled ? u.twoFaType : 'off'],
          ['Web3 sign-in address', u.web3Address ? copyable(u.web3Address) : null],
          ['Deposit address', o.custodialAddress ? copyable(o.custodialAddress) : 'none yet'],
          ['Key exported', o.keyExportedAt ? time(o.keyExportedAt) : undefined],
          ['Signed up', time(u.createdAt)],
          ['Last login', time(u.lastLoginAt)],
        ]),
        section(
          'Balances',
          [
            ['Coin', (b) => String(b.coin).toUpperCase()],
            ['Available', (b) => amount(b.available, b.coin)],
          ],
          o.balances,
        ),
        section(
          'Deposits',
          [
            ['Transaction', (d) => txLink(d.txHash, { deposit: true })],
            ['Amount', (d) => amount(d.amount, d.coin)],
            ['State', (d) => state(d.state)],
            ['Block', (d) => d.blockNumber],
            ['Recorded', (d) => time(d.createdAt)],
          ],
          o.deposits,
        ),
        section(
          'Withdrawals',
          [
            ['Withdrawal', (w) => detailLink('withdrawal', w._id, { n: 10 })],
            ['Amount', (w) => amount(w.amount, w.coin)],
            ['To', (w) => copyable(w.address, 12)],
            ['State', (w) => state(w.status)],
            ['Transaction', (w) => txLink(w.txHash)],
            ['Requested', (w) => time(w.createdAt)],
          ],
          ws,
          withdrawals.total > ws.length
            ? h(
                'a',
                { href: `#/withdrawals?user=${u._id}&order=newest` },
                `All ${withdrawals.total} withdrawals`,
              )
            : null,
        ),
        section(
          'Escrows',
          [
            ['Escrow', (e) => detailLink('escrow', e._id, { n: 10 })],
            ['Role', (e) => e.role],
            ['Amount', (e) => e.amountText],
            ['State', (e) => state(e.status)],
            ['Job', (e) => detailLink('job', e.collectionId, { n: 10 })],
            ['Opened', (e) => time(e.createdAt)],
          ],
          o.escrows,
        ),
        section(
          'Jobs',
          [
            ['Job', (j) => detailLink('job', j._id, { text: j.name })],
            ['Role', (j) => j.role],
            ['Type', (j) => j.type],
            ['State', (j) => state(j.status)],
            ['Created', (j) => time(j.createdAt)],
          ],
          o.jobs,
        ),
        section(
          'Live sessions',
          [
            ['Started', (s) => time(s.createdAt)],
            ['IP', (s) => s.ip ?? '—'],
            ['Browser', (s) => s.userAgent ?? '—'],
          ],
          o.sessions,
        ),
        section(
          'Audit log',
          [
            ['When', (r) => time(r.createdAt)],
            ['Operator', (r) => (r.actorId === 'system' ? 'system' : (r.actorEmail ?? r.actorId))],
            ['Action', (r) => h('code', {}, r.action)],
            ['Reason', (r) => r.reason],
          ],
          records,
          audit.total > records.length
            ? h('a', { href: `#/audit?target=${u._id}` }, `All ${audit.total} records`)
            : null,
        ),
      ]
    },
  )
}
