// @ts-check
// The disputes list: each disputed job with its evidence, what is still in escrow and the
// proposal while open, how it ended once settled, and an admin's decision.
import { idOf, state, usd } from './cells.js'
import { h } from './dom.js'
import { dateRange, statusFilter } from './filters.js'
import { short, time } from './format.js'
import { detailLink, userLink } from './links.js'

export const disputesResource = {
  id: 'disputes',
  key: 'i',
  title: 'Disputes',
  intro:
    'Disputed jobs with their evidence. Deciding splits what is still in escrow between the creator and the talent (in USD, adding up to the amount in escrow); both are paid through the escrow.',
  path: '/v1/admin/disputes',
  filters: [statusFilter(['open', 'settling', 'settled']), ...dateRange()],
  rowLabel: (r) => `dispute ${short(idOf(r), 8)}`,
  columns: [
    { label: 'Dispute', cell: (r) => detailLink('dispute', idOf(r), { n: 10 }) },
    { label: 'Job', cell: (r) => detailLink('job', r.collection) },
    { label: 'Raised by', cell: (r) => userLink(r.raisedBy) },
    { label: 'Reason', cell: (r) => r.reason },
    {
      label: 'Evidence',
      cell: (r) =>
        (r.evidenceData ?? []).length
          ? h(
              'ul',
              { class: 'plain' },
              r.evidenceData.map((f) =>
                h(
                  'li',
                  {},
                  f.url
                    ? h('a', { href: f.url, target: '_blank', rel: 'noopener noreferrer' }, f.name ?? 'file')
                    : (f.name ?? 'file'),
                ),
              ),
            )
          : 'none',
    },
    // What is still held and proposed matters while it is open; afterwards, how it ended.
    { label: 'In escrow', num: true, cell: (r) => (r.status === 'open' ? usd(r.escrowAmount) : '—') },
    {
      label: 'Proposal or outcome',
      cell: (r) =>
        r.status === 'open'
          ? r.proposal
            ? `proposed: creator ${usd(r.proposal.creatorAmount)} / talent ${usd(r.proposal.ownerAmount)}`
            : ''
          : h(
              'span',
              { class: 'outcome' },
              `${r.resolution === 'arbiter' ? 'decided' : 'agreed'}: talent ${usd(r.ownerAmount)} / creator ${usd(r.creatorAmount)}`,
              r.resolvedAt ? ` on ${time(r.resolvedAt)}` : '',
              r.decidedBy ? h('span', {}, ' by ', userLink(r.decidedBy)) : '',
              r.note ? h('span', {}, ` · note: “${r.note}”`) : '',
              r.paidAt ? ` · paid ${time(r.paidAt)}` : '',
            ),
    },
    { label: 'State', cell: (r) => state(r.status) },
    { label: 'Opened', cell: (r) => time(r.createdAt) },
  ],
  actions: [
    {
      label: 'Decide',
      when: (r) => r.status === 'open',
      path: (r) => `/v1/admin/disputes/${r.collection}/decide`,
      text: (r) => `The two amounts must add up to ${usd(r.escrowAmount)}, what is still in escrow.`,
      fields: (r) => [
        {
          name: 'ownerAmount',
          label: 'Released to the talent (USD)',
          type: 'number',
          min: 0,
          step: 0.01,
          value: r.proposal?.ownerAmount ?? '',
        },
        {
          name: 'creatorAmount',
          label: 'Returned to the creator (USD)',
          type: 'number',
          min: 0,
          step: 0.01,
          value: r.proposal?.creatorAmount ?? '',
        },
        { name: 'note', label: 'Note shown to both parties', required: false },
      ],
      body: (v) => {
        const body = { ...v }
        if (!body.note) delete body.note
        return body
      },
    },
  ],
}
