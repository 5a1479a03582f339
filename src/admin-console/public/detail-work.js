// @ts-check
// A job's page (description, parties, price, delivery and files, its escrow and dispute) and a
// dispute's page (the reason, evidence, the last proposal, the decision, the job it is about and
// what the parties wrote to each other).
import { get } from './api.js'
import { detailPage, facts, fileList, prose, section, state } from './detail-common.js'
import { h } from './dom.js'
import { time } from './format.js'
import { detailLink, userLink } from './links.js'

/** @typedef {import('../../../clients/typescript/index.ts').AdminJob} AdminJob */
/** @typedef {import('../../../clients/typescript/index.ts').AdminDispute} AdminDispute */

const usd = (v) => (v === null || v === undefined ? null : `$${Number(v).toFixed(2)}`)

/** @param {AdminJob} j */
function jobFacts(j) {
  return facts([
    ['Job', detailLink('job', j._id, { text: j.name })],
    ['Type', j.type],
    ['State', state(j.status)],
    ['Creator', userLink(j.creatorId)],
    ['Talent', j.receiverId ? userLink(j.receiverId) : null],
    ['Price', usd(j.paymentFee)],
    ['Escrow', j.escrowId ? detailLink('escrow', j.escrowId) : null],
    ['Part of', j.parentId ? detailLink('job', j.parentId) : undefined],
    [
      'Dispute',
      j.dispute ? h('span', {}, detailLink('dispute', j.dispute.id), ' ', state(j.dispute.status)) : null,
    ],
    ['Attachments', fileList(j.attachments)],
    ['Delivered', j.deliveredAt ? time(j.deliveredAt) : null],
    ['Delivery files', fileList(j.deliveryAttachments)],
    ['Completed', j.completedAt ? time(j.completedAt) : undefined],
    ['Cancelled', j.cancelledAt ? `${time(j.cancelledAt)}: ${j.cancellationReason}` : undefined],
    ['Created', time(j.createdAt)],
  ])
}

/** @param {HTMLElement} main @param {string} id */
export function renderJob(main, id) {
  return detailPage(
    main,
    'Job',
    () => /** @type {Promise<AdminJob>} */ (get(`/v1/admin/jobs/${id}`)),
    (j) => {
      const heading = main.querySelector('h1')
      if (heading) heading.textContent = `Job ${j.name}`
      return [
        jobFacts(j),
        prose('Description', j.description),
        j.issue ? prose('Issue raised', j.issue) : null,
        prose('Delivery note', j.deliveryNote),
      ]
    },
  )
}

/** @param {HTMLElement} main @param {string} id */
export function renderDispute(main, id) {
  return detailPage(
    main,
    `Dispute ${id}`,
    () => /** @type {Promise<AdminDispute>} */ (get(`/v1/admin/disputes/${id}`)),
    (d) => [
      facts([
        ['Job', detailLink('job', d.collection, { text: d.job?.name ?? null })],
        ['Escrow', detailLink('escrow', d.escrowId)],
        ['Raised by', userLink(d.raisedBy, d.raisedByEmail)],
        ['State', state(d.status)],
        ['Still in escrow', d.status === 'open' ? usd(d.escrowAmount) : undefined],
        [
          'Last proposal',
          d.proposal
            ? h(
                'span',
                {},
                `creator ${usd(d.proposal.creatorAmount)} / talent ${usd(d.proposal.ownerAmount)} by `,
                userLink(d.proposal.proposedBy, d.proposedByEmail),
                ` on ${time(d.proposal.proposedAt)}`,
              )
            : null,
        ],
        [
          'Decision',
          d.resolution
            ? `${d.resolution === 'arbiter' ? 'decided' : 'agreed'}: talent ${usd(d.ownerAmount)} / creator ${usd(d.creatorAmount)} on ${time(d.resolvedAt)}`
            : 'none yet',
        ],
        ['Decided by', d.decidedBy ? userLink(d.decidedBy, d.decidedByEmail) : undefined],
        ['Paid', d.paidAt ? time(d.paidAt) : undefined],
        ['Evidence', fileList(d.evidenceData)],
        ['Opened', time(d.createdAt)],
      ]),
      prose('Reason', d.reason),
      d.note ? prose('Note to both parties', d.note) : null,
      d.job ? prose('The job’s description', d.job.description) : null,
      d.job ? prose('Delivery note', d.job.deliveryNote) : null,
      d.job
        ? h(
            'section',
            { class: 'card detail-section' },
            h('h2', {}, 'Delivery files'),
            fileList(d.job.deliveryAttachments),
          )
        : null,
      section(
        `Messages between the parties (${d.messages.total})`,
        [
          ['When', (m) => time(m.createdAt)],
          [
            'From',
            (m) =>
              m.user === d.job?.creatorId ? 'creator' : m.user === d.job?.receiverId ? 'talent' : m.user,
          ],
          ['Message', (m) => m.content],
          ['File', (m) => (m.mediaId ? fileList([m.mediaId]) : '')],
        ],
        d.messages.data,
      ),
      h('p', {}, h('a', { href: '#/disputes?status=open' }, 'Open disputes (to decide one)')),
    ],
  )
}
