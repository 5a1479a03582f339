// @ts-check
// Plots as inline SVG, drawn here: a line chart (deposits and withdrawals over time) and a stacked
// bar chart (open transfers by age). Each has a title and a description for screen readers, a
// tooltip per point or bar, and its numbers in a table under a disclosure.
import { h, s, uid } from './dom.js'

const W = 640
const H = 240
const M = { top: 14, right: 14, bottom: 40, left: 68 }

/** 0, a round maximum at or above `max`, and the ticks between (4 steps). */
function scale(max) {
  if (!(max > 0)) return { top: 1, ticks: [0, 0.25, 0.5, 0.75, 1] }
  const raw = max / 4
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((x) => x >= raw)
  return { top: step * 4, ticks: [0, 1, 2, 3, 4].map((i) => i * step) }
}

const fmt = (v) =>
  Math.abs(v) >= 1000 ? v.toLocaleString('en', { maximumFractionDigits: 0 }) : String(+v.toPrecision(4))

function frame(title, desc, plotH = H) {
  const titleId = uid('plot-title')
  const descId = uid('plot-desc')
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${W} ${plotH}`,
      class: 'plot',
      role: 'img',
      'aria-labelledby': `${titleId} ${descId}`,
      preserveAspectRatio: 'xMidYMid meet',
    },
    s('title', { id: titleId }, title),
    s('desc', { id: descId }, desc),
  )
  return svg
}

function yAxis(svg, sc, y, unit) {
  for (const t of sc.ticks) {
    const yy = y(t)
    svg.append(
      s('line', { x1: M.left, x2: W - M.right, y1: yy, y2: yy, class: 'grid' }),
      s('text', { x: M.left - 6, y: yy + 4, class: 'tick', 'text-anchor': 'end' }, fmt(t)),
    )
  }
  if (unit)
    svg.append(
      s(
        'text',
        {
          x: 12,
          y: M.top + (H - M.top - M.bottom) / 2,
          class: 'axis-label',
          transform: `rotate(-90 12 ${M.top + (H - M.top - M.bottom) / 2})`,
          'text-anchor': 'middle',
        },
        unit,
      ),
    )
}

function legend(series) {
  return h(
    'ul',
    { class: 'legend' },
    series.map((x) => h('li', {}, h('span', { class: ['swatch', x.cls], 'aria-hidden': 'true' }), x.label)),
  )
}

function dataTable(caption, head, rows) {
  return h(
    'details',
    { class: 'plot-data' },
    h('summary', {}, 'Numbers'),
    h(
      'table',
      { class: 'data' },
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c) => h('td', {}, c)),
          ),
        ),
      ),
    ),
  )
}

/** A chart's figure: its caption, the drawing, the legend of `series` and its numbers as a table. */
function figure(title, svg, series, head, rows) {
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, title),
    svg,
    legend(series),
    dataTable(title, head, rows),
  )
}

/**
 * series: [{ label, cls, values: number[] }] over the same `xLabels`. Returns a figure with the
 * chart, its legend and its numbers.
 */
export function lineChart({ title, desc, xLabels, series, unit }) {
  const max = Math.max(0, ...series.flatMap((x) => x.values))
  const sc = scale(max)
  const n = xLabels.length
  const x = (i) => M.left + (n <= 1 ? 0 : (i * (W - M.left - M.right)) / (n - 1))
  const y = (v) => M.top + (1 - v / sc.top) * (H - M.top - M.bottom)
  const svg = frame(title, desc)
  yAxis(svg, sc, y, unit)
  const every = Math.max(1, Math.ceil(n / 8))
  xLabels.forEach((label, i) => {
    if (i % every === 0 || i === n - 1)
      svg.append(s('text', { x: x(i), y: H - M.bottom + 16, class: 'tick', 'text-anchor': 'middle' }, label))
  })
  svg.append(s('line', { x1: M.left, x2: W - M.right, y1: y(0), y2: y(0), class: 'axis' }))
  for (const line of series) {
    const points = line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
    svg.append(s('polyline', { points, class: ['series', line.cls], fill: 'none' }))
    line.values.forEach((v, i) => {
      svg.append(
        s(
          'circle',
          { cx: x(i), cy: y(v), r: 3, class: ['point', line.cls] },
          s('title', {}, `${xLabels[i]}: ${line.label} ${fmt(v)}`),
        ),
      )
    })
  }
  return figure(
    title,
    svg,
    series,
    ['', ...series.map((x) => x.label)],
    xLabels.map((label, i) => [label, ...series.map((x) => fmt(x.values[i]))]),
  )
}

/** bars: [{ label, parts: [{ key, value }] }] stacked in the order of `series` ({ key, label, cls }). */
export function stackedBars({ title, desc, bars, series, unit }) {
  const totals = bars.map((b) => b.parts.reduce((sum, p) => sum + p.value, 0))
  const sc = scale(Math.max(0, ...totals))
  const y = (v) => M.top + (1 - v / sc.top) * (H - M.top - M.bottom)
  const svg = frame(title, desc)
  yAxis(svg, sc, y, unit)
  const slot = (W - M.left - M.right) / Math.max(1, bars.length)
  const bw = Math.min(56, slot * 0.7)
  bars.forEach((bar, i) => {
    const cx = M.left + slot * i + slot / 2
    let acc = 0
    for (const ser of series) {
      const v = bar.parts.find((p) => p.key === ser.key)?.value ?? 0
      if (v > 0) {
        svg.append(
          s(
            'rect',
            {
              x: cx - bw / 2,
              y: y(acc + v),
              width: bw,
              height: y(acc) - y(acc + v),
              class: ['bar', ser.cls],
            },
            s('title', {}, `${bar.label}: ${v} ${ser.label}`),
          ),
        )
      }
      acc += v
    }
    svg.append(
      s('text', { x: cx, y: H - M.bottom + 16, class: 'tick', 'text-anchor': 'middle' }, bar.label),
      s(
        'text',
        { x: cx, y: y(acc) - 4, class: 'tick value', 'text-anchor': 'middle' },
        totals[i] ? String(totals[i]) : '',
      ),
    )
  })
  svg.append(s('line', { x1: M.left, x2: W - M.right, y1: y(0), y2: y(0), class: 'axis' }))
  return figure(
    title,
    svg,
    series,
    ['', ...series.map((x) => x.label), 'total'],
    bars.map((b, i) => [
      b.label,
      ...series.map((x) => String(b.parts.find((p) => p.key === x.key)?.value ?? 0)),
      String(totals[i]),
    ]),
  )
}
