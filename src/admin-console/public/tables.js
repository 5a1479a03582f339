// @ts-check
// One list view for every admin resource (resources.js): filters kept in the address (a view can
// be linked and reloaded), a table with a caption and column headers, each row's actions as
// buttons, and pages. Keys: `/` focuses the first filter, `[` and `]` turn pages.
import { openAction } from './actions.js'
import { ApiError, call, download, get } from './api.js'
import { clear, h, uid } from './dom.js'
import { may } from './roles.js'

export const PAGE_SIZE = 20

function filterForm(res, query, navigate) {
  if (!res.filters?.length) return null
  const form = h('form', {
    class: 'filters',
    role: 'search',
    'aria-label': `Filter ${res.title.toLowerCase()}`,
  })
  for (const f of res.filters) {
    const id = uid('filter')
    const value = query.get(f.name) ?? f.default ?? ''
    const control =
      f.type === 'select'
        ? h(
            'select',
            { id, name: f.name, 'data-filter': '' },
            f.options.map((o) => {
              const v = typeof o === 'string' ? o : o.value
              return h(
                'option',
                { value: v, selected: v === value },
                typeof o === 'string' ? o || 'any' : o.label,
              )
            }),
          )
        : h('input', {
            id,
            name: f.name,
            type: f.type === 'date' ? 'date' : 'search',
            value,
            placeholder: f.placeholder ?? '',
            'data-filter': '',
          })
    form.append(h('div', { class: 'field inline' }, h('label', { for: id }, f.label), control))
  }
  form.append(h('button', { type: 'submit' }, 'Apply'))
  form.addEventListener('submit', (ev) => {
    ev.preventDefault()
    const next = new URLSearchParams()
    for (const [k, v] of new FormData(form).entries()) if (String(v).trim()) next.set(k, String(v).trim())
    navigate(res.id, next)
  })
  return form
}

/** Items and paging of an answer: a page object `{ page, pages, total, data }` or a plain array. */
function pageOf(data, res) {
  if (res.items) return res.items(data)
  if (Array.isArray(data)) return { items: data, page: 1, pages: 1, total: data.length }
  return { items: data?.data ?? [], page: data?.page ?? 1, pages: data?.pages ?? 1, total: data?.total ?? 0 }
}

function actionButton(res, action, row, reload) {
  return h(
    'button',
    {
      type: 'button',
      class: ['small', action.danger ? 'danger' : null],
      'aria-label': `${action.label} ${res.rowLabel(row)}`,
      onclick: () =>
        openAction({
          title: `${action.label} ${res.rowLabel(row)}`,
          text: action.text?.(row),
          fields: action.fields?.(row) ?? [],
          danger: action.danger,
          confirm: action.confirm ?? action.label,
          send: async (values) => {
            const body = action.body ? action.body(values, row) : values
            return (await call(action.method ?? 'POST', action.path(row), body)).message
          },
          done: reload,
        }),
    },
    action.label,
  )
}

function toolbarButton(tool, reload) {
  return h(
    'button',
    {
      type: 'button',
      onclick: () =>
        openAction({
          title: tool.label,
          text: tool.text,
          fields: tool.fields?.() ?? [],
          confirm: tool.confirm ?? tool.label,
          danger: tool.danger,
          send: async (values) => {
            const body = tool.body ? tool.body(values) : values
            return (await call(tool.method ?? 'POST', tool.path(values), body)).message
          },
          done: reload,
        }),
    },
    tool.label,
  )
}

/** Downloads what the list shows (its filters, every page) as the API's export file. */
function exportButton(res, params) {
  const filters = new URLSearchParams(params)
  filters.delete('page')
  filters.delete('limit')
  const status = h('span', { class: 'muted', role: 'status' })
  const button = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        button.disabled = true
        status.textContent = 'Preparing…'
        try {
          const { name, total } = await download(`${res.exportPath}?${filters}`)
          status.textContent = `${name}: ${total} ${total === 1 ? 'record' : 'records'}`
        } catch (err) {
          status.textContent = err instanceof ApiError ? `${err.message} (${err.code})` : String(err)
        } finally {
          button.disabled = false
        }
      },
    },
    'Export CSV',
  )
  return h('span', { class: 'export' }, button, status)
}

export async function renderList(main, res, { query, navigate }) {
  const reload = () => navigate(res.id, query, { replace: true })
  const params = new URLSearchParams(query)
  // A filter may name its API form (a day in the address, a time range for the API).
  // A filter's default is asked for when the address names none.
  for (const f of res.filters ?? []) {
    if (f.default && !params.get(f.name)) params.set(f.name, f.default)
    if (f.param && params.get(f.name)) params.set(f.name, f.param(params.get(f.name)))
  }
  if (!res.unpaged) {
    if (!params.has('page')) params.set('page', '1')
    params.set('limit', String(PAGE_SIZE))
  }
  const region = h(
    'div',
    { class: 'table-region', 'aria-busy': 'true' },
    h('p', { class: 'muted' }, 'Loading…'),
  )
  // (Element.append writes a null as the text "null": only nodes go in.)
  clear(main).append(
    ...[
      h('h1', {}, res.title),
      res.intro ? h('p', { class: 'intro' }, res.intro) : null,
      h(
        'div',
        { class: 'toolbar' },
        filterForm(res, query, navigate),
        (res.toolbar ?? []).filter((t) => may(t.path({}))).map((t) => toolbarButton(t, reload)),
        res.exportPath ? exportButton(res, params) : null,
      ),
      region,
    ].filter(Boolean),
  )
  let data
  try {
    data = res.load ? await res.load(params) : await get(`${res.path}?${params}`)
  } catch (err) {
    region.removeAttribute('aria-busy')
    clear(region).append(
      h(
        'p',
        { class: 'error', role: 'alert' },
        err instanceof ApiError ? `${err.message} (${err.code})` : String(err),
      ),
    )
    return
  }
  const { items, page, pages, total } = pageOf(data, res)
  const actions = res.actions ?? []
  const table = h(
    'table',
    { class: 'list', id: `table-${res.id}` },
    h(
      'caption',
      {},
      `${res.title}: ${total} ${total === 1 ? 'record' : 'records'}${pages > 1 ? `, page ${page} of ${pages}` : ''}`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        res.columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)),
        actions.length ? h('th', { scope: 'col' }, 'Actions') : null,
      ),
    ),
    h(
      'tbody',
      {},
      items.length === 0
        ? h(
            'tr',
            {},
            h(
              'td',
              { colspan: res.columns.length + (actions.length ? 1 : 0), class: 'muted' },
              'Nothing here.',
            ),
          )
        : items.map((row) =>
            h(
              'tr',
              { 'data-id': res.rowId ? res.rowId(row) : (row.id ?? row._id) },
              res.columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(row) ?? '—')),
              actions.length
                ? h(
                    'td',
                    { class: 'row-actions' },
                    actions
                      .filter((a) => (!a.when || a.when(row)) && may(a.path(row)))
                      .map((a) => actionButton(res, a, row, reload)),
                  )
                : null,
            ),
          ),
    ),
  )
  const turn = (p) => {
    const next = new URLSearchParams(query)
    next.set('page', String(p))
    navigate(res.id, next)
  }
  const pager =
    pages > 1
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'Pages' },
          h(
            'button',
            { type: 'button', 'data-page': 'prev', disabled: page <= 1, onclick: () => turn(page - 1) },
            '← Previous',
          ),
          h('span', {}, `Page ${page} of ${pages}`),
          h(
            'button',
            { type: 'button', 'data-page': 'next', disabled: page >= pages, onclick: () => turn(page + 1) },
            'Next →',
          ),
        )
      : null
  region.removeAttribute('aria-busy')
  clear(region).append(h('div', { class: 'scroll' }, table), pager ?? '', res.after ? res.after(data) : '')
}
