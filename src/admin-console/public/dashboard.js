// @ts-check
// The dashboard: what is held per coin, whether the ledger agrees with the chain (halted coins with
// their resume action, a reconciliation run on demand), transfers in flight and the job queue with
// their ages, and two plots: deposits and withdrawals over time, and the ages of open transfers.
import { openAction } from './actions.js'
import { ApiError, call, get } from './api.js'
import { clear, h, uid } from './dom.js'
import { age, amount, knownDecimals, learnDecimals, time, toNumber } from './format.js'
import { lineChart, stackedBars } from './plots.js'
import { may } from './roles.js'

const card = (title, ...body) => {
  const id = uid('card')
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...body)
}
const wide = (el) => {
  el.classList.add('full')
  return el
}

const failed = (err) =>
  h(
    'p',
    { class: 'error', role: 'alert' },
    err instanceof ApiError ? `${err.message} (${err.code})` : String(err),
  )

function table(caption, head, rows, numeric = []) {
  return h('div', { class: 'scroll' }, tableOf(caption, head, rows, numeric))
}

function tableOf(caption, head, rows, numeric) {
  return h(
    'table',
    { class: 'list compact' },
    h('caption', { class: 'sr-only' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((c, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : null }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length === 0
        ? h('tr', {}, h('td', { colspan: head.length, class: 'muted' }, 'Nothing here.'))
        : rows.map((r) =>
            h(
              'tr',
              {},
              r.map((c, i) => h('td', { class: numeric.includes(i) ? 'num' : null }, c)),
            ),
          ),
    ),
  )
}

function heldCard(overview) {
  const rows = overview.balances.map((b) => [
    b.coin.toUpperCase(),
    amount(b.users, b.coin, b.decimals),
    amount(b.escrow, b.coin, b.decimals),
    amount(b.withdrawalHolds, b.coin, b.decimals),
    amount(b.platformFees, b.coin, b.decimals),
    amount(b.treasury, b.coin, b.decimals),
    h('strong', {}, amount(b.total, b.coin, b.decimals)),
    BigInt(b.platformLoss ?? '0') > 0n
      ? h('span', { class: 'bad' }, amount(b.platformLoss, b.coin, b.decimals))
      : amount(b.platformLoss ?? '0', b.coin, b.decimals),
  ])
  const gas = overview.gasWallet
  return card(
    'Held in custody',
    table(
      'Held in custody per coin',
      ['Coin', 'Users', 'Escrow', 'Withdrawing', 'Platform fees', 'Treasury', 'Total', 'Reorg losses'],
      rows,
      [1, 2, 3, 4, 5, 6, 7],
    ),
    h(
      'p',
      { class: 'muted' },
      'Total = Users + Escrow + Withdrawing + Platform fees + Treasury (treasury: withdrawal fees and gas top-ups kept at custodial addresses). Reorg losses are not part of it.',
    ),
    h(
      'p',
      { class: 'status-line', id: 'gas-wallet' },
      'Gas wallet ',
      h('code', { title: gas.address }, `${gas.address.slice(0, 10)}…`),
      ': ',
      gas.balance === null
        ? h('span', { class: 'bad' }, 'chain not readable')
        : h('strong', {}, amount(gas.balance, gas.coin, gas.decimals)),
      ' (pays the gas of transfers from custodial addresses)',
    ),
  )
}

function reconciliationCard(report, reload) {
  const run = report.runs[0]
  const halted = new Map(report.halts.map((x) => [x.coin, x]))
  const body = []
  body.push(
    h(
      'p',
      { class: 'status-line' },
      run
        ? [
            'Last run ',
            time(run.finishedAt ?? run.startedAt),
            ': ',
            h('span', { class: ['state', `state-${run.status}`] }, run.status),
            run.block ? ` at block ${run.block}` : '',
          ]
        : 'No reconciliation has run yet.',
    ),
  )
  const rows = (run?.coins ?? []).map((c) => [
    c.coin.toUpperCase(),
    amount(c.ledgerTotal, c.coin),
    amount(c.chainTotal, c.coin),
    h('span', { class: BigInt(c.drift) === 0n ? 'ok' : 'bad' }, amount(c.drift, c.coin)),
    halted.has(c.coin)
      ? h('span', { class: 'state state-halted' }, 'halted')
      : h('span', { class: 'state state-ok' }, 'running'),
  ])
  body.push(
    table('Ledger and chain per coin', ['Coin', 'Ledger', 'Chain', 'Drift', 'Coin state'], rows, [1, 2, 3]),
  )
  if (report.halts.length) {
    body.push(
      h('h3', {}, 'Halted coins'),
      h(
        'ul',
        { class: 'halts' },
        report.halts.map((x) =>
          h(
            'li',
            {},
            h('strong', {}, x.coin.toUpperCase()),
            ` ${x.reason.replaceAll('_', ' ')} since ${time(x.haltedAt)} (by ${x.haltedBy}) `,
            may(`/v1/admin/coins/${x.coin}/resume`) &&
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  onclick: () =>
                    openAction({
                      title: `Resume ${x.coin.toUpperCase()}`,
                      text: 'Crediting and sending in this coin start again; parked movements are credited in chain order. Fix the cause first (docs/operations.md).',
                      confirm: 'Resume',
                      send: async (v) => (await call('POST', `/v1/admin/coins/${x.coin}/resume`, v)).message,
                      done: reload,
                    }),
                },
                'Resume',
              ),
          ),
        ),
      ),
    )
  }
  if (may('/v1/admin/reconciliation/run'))
    body.push(
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            onclick: () =>
              openAction({
                title: 'Run reconciliation now',
                text: 'Checks the ledger invariants and every custodial address against the chain; a coin that does not match is halted.',
                confirm: 'Run now',
                send: async (v) => {
                  const { data, message } = await call('POST', '/v1/admin/reconciliation/run', v)
                  return `${message} (${data.status})`
                },
                done: reload,
              }),
          },
          'Run reconciliation now',
        ),
      ),
    )
  return card('Ledger and chain', ...body)
}

function transfersCard(overview) {
  const rows = overview.transfers
    .filter((t) => t.status !== 'failed')
    .map((t) => [
      h('a', { href: `#/transfers?status=${t.status}` }, t.status),
      t.purpose,
      t.coin.toUpperCase(),
      String(t.transfers),
      age(t.oldestSeconds),
    ])
  return card(
    'Transfers in flight',
    table('Outgoing transfers on their way', ['State', 'Purpose', 'Coin', 'Count', 'Oldest'], rows, [3, 4]),
  )
}

/** Transfers that failed for good: settled (their value went back), listed apart from those in flight. */
function failedCard(overview) {
  const rows = overview.transfers
    .filter((t) => t.status === 'failed')
    .map((t) => [
      h('a', { href: `#/transfers?status=failed&purpose=${encodeURIComponent(t.purpose)}` }, t.purpose),
      t.coin.toUpperCase(),
      String(t.transfers),
    ])
  return card(
    'Failed transfers',
    table('Outgoing transfers that failed for good', ['Purpose', 'Coin', 'Count'], rows, [2]),
    h(
      'p',
      { class: 'muted' },
      'Each failed for good and its value went back to the account that funded it; open one for its errors.',
    ),
  )
}

function queueCard(overview) {
  const rows = overview.queue.map((q) => [
    h('code', {}, q.kind),
    String(q.queued),
    String(q.ready),
    String(q.running),
    h('span', { class: q.failed ? 'bad' : null }, String(q.failed)),
    age(q.oldestReadySeconds),
  ])
  return card(
    'Job queue',
    table(
      'Background jobs per kind',
      ['Kind', 'Queued', 'Due', 'Running', 'Failed', 'Oldest due'],
      rows,
      [1, 2, 3, 4, 5],
    ),
  )
}

async function flowsCard(coins, state, redraw) {
  const coinId = uid('coin')
  const daysId = uid('days')
  const controls = h(
    'form',
    { class: 'filters' },
    h(
      'div',
      { class: 'field inline' },
      h('label', { for: coinId }, 'Coin'),
      h(
        'select',
        { id: coinId, name: 'coin' },
        coins.map((c) => h('option', { value: c, selected: c === state.coin }, c.toUpperCase())),
      ),
    ),
    h(
      'div',
      { class: 'field inline' },
      h('label', { for: daysId }, 'Period'),
      h(
        'select',
        { id: daysId, name: 'days' },
        [
          [2, 'last 48 hours'],
          [14, 'last 14 days'],
          [30, 'last 30 days'],
          [90, 'last 90 days'],
        ].map(([v, l]) => h('option', { value: v, selected: v === state.days }, l)),
      ),
    ),
  )
  controls.addEventListener('change', () => {
    const f = new FormData(controls)
    state.coin = String(f.get('coin'))
    state.days = Number(f.get('days'))
    redraw()
  })
  controls.addEventListener('submit', (ev) => ev.preventDefault())
  const holder = h('div', {})
  try {
    const flows = await get(`/v1/admin/stats/flows?coin=${encodeURIComponent(state.coin)}&days=${state.days}`)
    const d = flows.decimals ?? knownDecimals(flows.coin)
    const label = (iso) => {
      const t = new Date(iso)
      return flows.unit === 'hour'
        ? `${String(t.getHours()).padStart(2, '0')}:00`
        : `${t.getMonth() + 1}/${t.getDate()}`
    }
    holder.append(
      lineChart({
        title: `Deposits and withdrawals, ${flows.coin.toUpperCase()} per ${flows.unit}`,
        desc: `Completed deposits, and withdrawals to outside addresses (not in-app payments, fee legs or gas top-ups), in ${flows.coin.toUpperCase()} over the ${state.days <= 2 ? 'last 48 hours' : `last ${state.days} days`}.`,
        unit: flows.coin.toUpperCase(),
        xLabels: flows.buckets.map((b) => label(b.at)),
        series: [
          { label: 'Deposits', cls: 's-deposit', values: flows.buckets.map((b) => toNumber(b.deposits, d)) },
          {
            label: 'Withdrawals',
            cls: 's-withdrawal',
            values: flows.buckets.map((b) => toNumber(b.withdrawals, d)),
          },
        ],
      }),
    )
  } catch (err) {
    holder.append(failed(err))
  }
  return card('Money in and out', controls, holder)
}

async function agesCard() {
  try {
    const ages = await get('/v1/admin/stats/transfer-ages')
    return card(
      'Age of open transfers',
      h(
        'p',
        { class: 'muted' },
        `${ages.open} open (queued, signed or sent). Anything older than a few minutes deserves a look.`,
      ),
      stackedBars({
        title: 'Open outgoing transfers by age',
        desc: `${ages.open} open transfers, counted per age bucket and state.`,
        unit: 'transfers',
        series: [
          { key: 'queued', label: 'queued', cls: 's-queued' },
          { key: 'signed', label: 'signed', cls: 's-signed' },
          { key: 'sent', label: 'sent', cls: 's-sent' },
        ],
        bars: ages.buckets.map((b) => ({
          label: b.label,
          parts: [
            { key: 'queued', value: b.queued },
            { key: 'signed', value: b.signed },
            { key: 'sent', value: b.sent },
          ],
        })),
      }),
    )
  } catch (err) {
    return card('Age of open transfers', failed(err))
  }
}

const flowState = { coin: undefined, days: 14 }

/**
 * @param {HTMLElement} main
 * @param {{ navigate: (section: string, query?: URLSearchParams, opts?: { replace?: boolean }) => void, query?: URLSearchParams }} opts
 */
export async function renderDashboard(main, { navigate }) {
  const reload = () => navigate('dashboard', new URLSearchParams(), { replace: true })
  clear(main).append(h('h1', {}, 'Dashboard'), h('p', { class: 'muted', 'aria-busy': 'true' }, 'Loading…'))
  let overview
  let report
  try {
    ;[overview, report] = await Promise.all([
      get('/v1/admin/stats/overview'),
      get('/v1/admin/reconciliation?limit=1'),
    ])
  } catch (err) {
    clear(main).append(h('h1', {}, 'Dashboard'), failed(err))
    return
  }
  for (const b of overview.balances) learnDecimals(b.coin, b.decimals)
  const coins = overview.balances.map((b) => b.coin)
  flowState.coin ??= coins[0]
  const flowsSlot = h('div', { class: 'slot' })
  const drawFlows = async () => {
    const active = /** @type {HTMLInputElement | null} */ (document.activeElement)
    const focused = active && flowsSlot.contains(active) ? active.name : null
    const next = await flowsCard(coins, flowState, drawFlows)
    clear(flowsSlot).append(next)
    if (focused) flowsSlot.querySelector(`[name="${focused}"]`)?.focus()
  }
  clear(main).append(
    h('h1', {}, 'Dashboard'),
    h('p', { class: 'muted' }, `As of ${time(overview.generatedAt)}. Press r to reload.`),
    h(
      'div',
      { class: 'grid' },
      wide(heldCard(overview)),
      wide(reconciliationCard(report, reload)),
      transfersCard(overview),
      failedCard(overview),
      queueCard(overview),
      flowsSlot,
      await agesCard(),
    ),
  )
  if (flowState.coin) await drawFlows()
}
