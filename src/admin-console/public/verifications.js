// @ts-check
// Identity verifications: the sessions waiting for an operator (submitted) first, each with the
// person as declared and the images behind short-lived signed URLs; approve, or reject with a
// reason the user is shown (both kept in the audit log).
import { get } from './api.js'
import { h } from './dom.js'
import { short, time } from './format.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminVerification} AdminVerification */

const state = (v) => h('span', { class: ['state', `state-${String(v).toLowerCase()}`] }, String(v))
const idOf = (row) => row._id

/** One image: a thumbnail linking to the full picture (its signed URL lasts 300 seconds). */
const image = (m) =>
  h(
    'a',
    {
      href: m.url,
      target: '_blank',
      rel: 'noopener noreferrer',
      title: `${m.context} (${m.mimetype}, ${m.size} bytes)`,
    },
    h('img', {
      src: m.url,
      alt: m.context,
      width: 96,
      height: 96,
    }),
  )

export const verificationsResource = {
  id: 'verifications',
  key: 'v',
  title: 'Identity verifications',
  intro:
    'Sessions whose images are all in wait here for a decision, oldest first. Compare the selfie with the document and the declared details; Approve sets the account’s identity as verified (withdrawals above the KYC_REQUIRED_FOR amounts need it), Reject declines it with a reason the user is shown. The user is notified either way. Image links expire after 5 minutes: reload the list for fresh ones.',
  path: '/v1/admin/verifications',
  filters: [
    {
      name: 'status',
      label: 'State',
      type: 'select',
      options: [
        { value: '', label: 'submitted (waiting)' },
        { value: 'all', label: 'any' },
        ...['created', 'review', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned'],
      ],
    },
  ],
  /** The waiting sessions unless another state (or `all`) is chosen. */
  load: (params) => {
    const p = new URLSearchParams(params)
    if (!p.get('status')) p.set('status', 'submitted')
    else if (p.get('status') === 'all') p.delete('status')
    return get(`/v1/admin/verifications?${p}`)
  },
  rowLabel: (r) => `verification of ${r.person.firstName} ${r.person.lastName} (${short(idOf(r), 8)})`,
  columns: /** @type {import('./resources.js').Columns<AdminVerification>} */ ([
    { label: 'Started', cell: (r) => time(r.createdAt) },
    {
      label: 'Person',
      cell: (r) =>
        h(
          'span',
          {},
          `${r.person.firstName} ${r.person.lastName}, born ${r.person.dateOfBirth} (${r.person.gender})`,
          h('br'),
          h('span', { class: 'muted' }, r.owner.email ?? short(r.owner._id, 8)),
        ),
    },
    {
      label: 'Document',
      cell: (r) =>
        h(
          'span',
          {},
          `${r.person.documentType} ${r.person.country} `,
          h('code', {}, r.person.documentNumber),
          h('br'),
          h('span', { class: 'muted' }, r.person.fullAddress),
        ),
    },
    {
      label: 'Images',
      cell: (r) =>
        r.media.length
          ? h(
              'span',
              {},
              r.media.flatMap((m) => [image(m), ' ']),
            )
          : '—',
    },
    { label: 'Provider', cell: (r) => r.provider },
    { label: 'State', cell: (r) => state(r.status) },
    { label: 'Decision', cell: (r) => (r.decidedAt ? `${time(r.decidedAt)}: ${r.reason}` : '') },
  ]),
  actions: [
    {
      label: 'Approve',
      when: (r) => r.status === 'submitted' && r.provider === 'operator',
      path: (r) => `/v1/admin/verifications/${idOf(r)}/approve`,
      text: () => 'The account’s identity becomes verified and the user is notified.',
    },
    {
      label: 'Reject',
      danger: true,
      when: (r) => r.status === 'submitted' && r.provider === 'operator',
      path: (r) => `/v1/admin/verifications/${idOf(r)}/reject`,
      text: () =>
        'The verification is declined; the reason below is shown to the user, who may start a new one.',
    },
  ],
}
