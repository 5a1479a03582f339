// @ts-check
// The detail pages' routes: `#/user/<id>`, `#/transfer/<id>`, `#/withdrawal/<id>`,
// `#/deposit/<txHash>`, `#/escrow/<id>`, `#/job/<id>` and `#/dispute/<id>`. A deposit's page is the
// deposit lookup of its hash.
import { depositsResource } from './deposits.js'
import { renderEscrow, renderTransfer, renderWithdrawal } from './detail-money.js'
import { renderUser } from './detail-user.js'
import { renderDispute, renderJob } from './detail-work.js'
import { loadChain } from './links.js'
import { renderList } from './tables.js'

const PAGES = {
  user: { title: 'User', render: (main, id, ctx) => renderUser(main, id, ctx) },
  transfer: { title: 'Transfer', render: (main, id) => renderTransfer(main, id) },
  withdrawal: { title: 'Withdrawal', render: (main, id) => renderWithdrawal(main, id) },
  escrow: { title: 'Escrow', render: (main, id) => renderEscrow(main, id) },
  job: { title: 'Job', render: (main, id) => renderJob(main, id) },
  dispute: { title: 'Dispute', render: (main, id) => renderDispute(main, id) },
  deposit: {
    title: 'Deposit',
    render: (main, hash, ctx) =>
      renderList(main, depositsResource, { query: new URLSearchParams({ hash }), navigate: ctx.navigate }),
  },
}

/**
 * The page a route names (`<kind>/<id>`), as a section the frame draws; undefined for any other.
 * @param {string} route
 */
export function detailRoute(route) {
  const m = /^([a-z]+)\/([^/?]+)$/.exec(route)
  const page = m ? PAGES[m[1]] : undefined
  if (!m || !page) return undefined
  const id = decodeURIComponent(m[2])
  return {
    id: route,
    key: '',
    title: `${page.title} ${id}`,
    render: async (main, ctx) => {
      await loadChain()
      await page.render(main, id, {
        ...ctx,
        reload: () => ctx.navigate(route, new URLSearchParams(), { replace: true }),
      })
    },
  }
}
