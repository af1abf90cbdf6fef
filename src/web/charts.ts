// Hand-drawn SVG charts (smaller than any charting library for these four pictures). Each has a
// <title> and <desc>; the views put the same numbers in a table next to it.
import { h, svg } from './dom'

let ids = 0
const uid = (p: string) => `${p}-${++ids}`

function frame(width: number, height: number, title: string, desc: string, cls: string, ...children: SVGElement[]): SVGElement {
  const t = uid('t')
  const d = uid('d')
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, class: `chart ${cls}`, role: 'img', 'aria-labelledby': `${t} ${d}` },
    svg('title', { id: t }, title),
    svg('desc', { id: d }, desc),
    ...children
  )
}

/** A round upper bound for an axis (1, 2, 5 × 10^n). */
export function niceMax(n: number): number {
  if (n <= 0) return 1
  const p = 10 ** Math.floor(Math.log10(n))
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p
  return 10 * p
}

export type Series = { key: string; label: string; cls: string }

export const VERDICT_SERIES: Series[] = [
  { key: 'humanVerified', label: 'human verified', cls: 'fill-human' },
  { key: 'suspicious', label: 'suspicious', cls: 'fill-suspicious' },
  { key: 'bot', label: 'bot', cls: 'fill-bot' },
  { key: 'insufficientData', label: 'insufficient data', cls: 'fill-insufficient' },
  { key: 'unscored', label: 'not scored yet', cls: 'fill-unscored' },
]

export function legend(series: Series[]): HTMLElement {
  return h(
    'ul',
    { class: 'legend', 'aria-hidden': 'true' },
    ...series.map((s) =>
      h('li', {}, svg('svg', { viewBox: '0 0 10 10', class: 'swatch' }, svg('rect', { width: 10, height: 10, class: s.cls })), s.label)
    )
  )
}

/** Stacked bars, one per row of `rows` (e.g. a day), each split by `series`. */
export function stackedBars(
  rows: { label: string; values: Record<string, number> }[],
  series: Series[],
  title: string,
  desc: string
): SVGElement {
  const W = 720
  const H = 220
  const left = 44
  const bottom = 26
  const top = 10
  const plotW = W - left - 8
  const plotH = H - top - bottom
  const totals = rows.map((r) => series.reduce((n, s) => n + (r.values[s.key] ?? 0), 0))
  const max = niceMax(Math.max(0, ...totals))
  const step = plotW / Math.max(1, rows.length)
  const barW = Math.max(1, step * 0.8)
  const y = (v: number) => top + plotH - (v / max) * plotH
  const parts: SVGElement[] = []
  for (const tick of [0, max / 2, max]) {
    parts.push(svg('line', { x1: left, x2: W - 8, y1: y(tick), y2: y(tick), class: 'grid' }))
    parts.push(svg('text', { x: left - 6, y: y(tick) + 4, class: 'axis', 'text-anchor': 'end' }, String(Math.round(tick))))
  }
  rows.forEach((r, i) => {
    let base = 0
    const x = left + i * step + (step - barW) / 2
    for (const s of series) {
      const v = r.values[s.key] ?? 0
      if (v > 0) {
        parts.push(
          svg(
            'rect',
            { x, width: barW, y: y(base + v), height: y(base) - y(base + v), class: s.cls },
            svg('title', {}, `${r.label}: ${v} ${s.label}`)
          )
        )
      }
      base += v
    }
  })
  const labelAt = rows.length > 12 ? [0, Math.floor((rows.length - 1) / 2), rows.length - 1] : rows.map((_, i) => i)
  for (const i of new Set(labelAt)) {
    const row = rows[i]
    if (!row) continue
    parts.push(svg('text', { x: left + i * step + step / 2, y: H - 8, class: 'axis', 'text-anchor': 'middle' }, row.label))
  }
  return frame(W, H, title, desc, 'bars', ...parts)
}

export type Point = { t: number; x: number; y: number; kind: string }

/** A length for the scale bar: about a quarter of the span, rounded to 1, 2 or 5 × 10^n CSS px. */
function scaleLength(span: number): number {
  const target = span / 4
  const p = 10 ** Math.floor(Math.log10(Math.max(1, target)))
  return [5, 2, 1].map((m) => m * p).find((v) => v <= target) ?? p
}

/** The pointer and touch path in page CSS px, x and y on the same scale (y downwards, as on screen). */
export function trajectory(points: Point[], title: string): SVGElement {
  const xs = points.map((p) => p.x)
  const ys = points.map((p) => p.y)
  const minX = Math.min(...xs)
  const minY = Math.min(...ys)
  const w = Math.max(1, Math.max(...xs) - minX)
  const hgt = Math.max(1, Math.max(...ys) - minY)
  const span = Math.max(w, hgt)
  const pad = span * 0.06 + 4
  const unit = span / 120
  const pointer = points.filter((p) => !p.kind.startsWith('t'))
  const touch = points.filter((p) => p.kind.startsWith('t'))
  const line = (ps: Point[], cls: string) =>
    svg('polyline', { points: ps.map((p) => `${p.x},${p.y}`).join(' '), class: cls, 'vector-effect': 'non-scaling-stroke' })
  const parts: SVGElement[] = [svg('rect', { x: minX - pad, y: minY - pad, width: w + 2 * pad, height: hgt + 2 * pad, class: 'canvas' })]
  if (pointer.length > 1) parts.push(line(pointer, 'path-pointer'))
  if (touch.length > 1) parts.push(line(touch, 'path-touch'))
  for (const p of points) {
    if (p.kind === 'c' || p.kind === 'md' || p.kind === 'ts')
      parts.push(svg('circle', { cx: p.x, cy: p.y, r: unit * 1.6, class: `mark-${p.kind}` }))
  }
  const first = points[0]!
  parts.push(svg('circle', { cx: first.x, cy: first.y, r: unit * 1.3, class: 'mark-start' }))
  const bar = scaleLength(span)
  const by = minY + hgt + pad * 0.55
  parts.push(svg('line', { x1: minX, x2: minX + bar, y1: by, y2: by, class: 'scale', 'vector-effect': 'non-scaling-stroke' }))
  parts.push(svg('text', { x: minX + bar + unit * 2, y: by + unit * 1.5, class: 'scale-text', 'font-size': unit * 4.5 }, `${bar} px`))
  const clicks = points.filter((p) => p.kind === 'c').length
  const desc =
    `${points.length} points over ${((points[points.length - 1]!.t - first.t) / 1000).toFixed(1)} s, ` +
    `spanning ${Math.round(w)} × ${Math.round(hgt)} CSS px from (${Math.round(minX)}, ${Math.round(minY)}); ${clicks} click${clicks === 1 ? '' : 's'} marked. ` +
    'Drawn to scale: the bar is the stated number of CSS pixels.'
  const out = frame(0, 0, title, desc, 'trajectory', ...parts)
  out.setAttribute('viewBox', `${minX - pad} ${minY - pad} ${w + 2 * pad} ${hgt + 2 * pad}`)
  out.setAttribute('preserveAspectRatio', 'xMidYMid meet')
  // A tall path is capped by max-height (CSS); narrowing the box to match avoids empty bands beside it (CSSOM, allowed by the CSP).
  out.style.maxWidth = `calc(28rem * ${((w + 2 * pad) / (hgt + 2 * pad)).toFixed(4)})`
  out.dataset.width = String(Math.round(w))
  out.dataset.height = String(Math.round(hgt))
  return out
}

export type TimelineEvent = { t: number; kind: string; keyClass: string | null; dy: number | null }

export const LANES: { label: string; kinds: string[]; cls: string }[] = [
  { label: 'Moves', kinds: ['mm'], cls: 'lane-moves' },
  { label: 'Clicks', kinds: ['md', 'mu', 'c'], cls: 'lane-clicks' },
  { label: 'Keys (class)', kinds: ['kd', 'ku'], cls: 'lane-keys' },
  { label: 'Scrolls', kinds: ['s'], cls: 'lane-scrolls' },
  { label: 'Touches', kinds: ['ts', 'tm', 'te'], cls: 'lane-touches' },
  { label: 'Focus, visibility', kinds: ['f', 'b', 'v', 'r'], cls: 'lane-focus' },
]

const KIND_WORDS: Record<string, string> = {
  mm: 'move',
  md: 'button down',
  mu: 'button up',
  c: 'click',
  kd: 'key down',
  ku: 'key up',
  s: 'scroll',
  ts: 'touch start',
  tm: 'touch move',
  te: 'touch end',
  f: 'focus',
  b: 'blur',
  v: 'visibility change',
  r: 'resize',
}
export const kindWords = (k: string) => KIND_WORDS[k] ?? k

/** One lane per kind of event, time left to right. Keys are shown by class only (that is all that is stored). */
export function timeline(events: TimelineEvent[], durationMs: number): SVGElement {
  const W = 720
  const laneH = 28
  const left = 130
  const H = LANES.length * laneH + 24
  const span = Math.max(1, durationMs, ...events.map((e) => e.t))
  const x = (t: number) => left + (t / span) * (W - left - 10)
  const parts: SVGElement[] = []
  const counts: string[] = []
  LANES.forEach((lane, i) => {
    const y0 = i * laneH
    parts.push(svg('rect', { x: left, y: y0 + 2, width: W - left - 10, height: laneH - 4, class: 'lane-bg' }))
    parts.push(svg('text', { x: left - 8, y: y0 + laneH / 2 + 4, class: 'axis', 'text-anchor': 'end' }, lane.label))
    const mine = events.filter((e) => lane.kinds.includes(e.kind))
    counts.push(`${lane.label}: ${mine.length}`)
    for (const e of mine) {
      const tick = svg('rect', { x: x(e.t) - 0.75, y: y0 + 5, width: 1.5, height: laneH - 10, class: `${lane.cls} tick-${e.kind}` })
      // Moves are too many to label one by one; every other event says what it was.
      if (e.kind !== 'mm') {
        const extra = e.keyClass ? ` (${e.keyClass})` : e.dy !== null && e.dy !== undefined ? ` (${e.dy} px)` : ''
        tick.append(svg('title', {}, `${kindWords(e.kind)}${extra} at ${(e.t / 1000).toFixed(2)} s`))
      }
      parts.push(tick)
    }
  })
  const axisY = LANES.length * laneH + 16
  for (const f of [0, 0.5, 1]) {
    parts.push(
      svg(
        'text',
        { x: x(span * f), y: axisY, class: 'axis', 'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle' },
        `${((span * f) / 1000).toFixed(1)} s`
      )
    )
  }
  return frame(W, H, 'Events over time, by kind', `${(span / 1000).toFixed(1)} s shown. ${counts.join('; ')}.`, 'timeline', ...parts)
}
