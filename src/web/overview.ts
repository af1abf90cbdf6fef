// The "Overview" view: plan usage, and verdicts over time (per day by verdict, hcs histogram), each
// chart with its numbers in a table.
import * as api from './api'
import { legend, stackedBars, VERDICT_SERIES } from './charts'
import { $, fail, fmtDay, h, plural, table } from './dom'

type Usage = {
  planId: string
  displayName: string
  sessionsUsed: number
  sessionsLimit: number
  percentUsed: number
  periodStart: string
  periodEnd: string
}
type Day = { day: string; humanVerified: number; suspicious: number; bot: number; insufficientData: number; unscored: number }
type Stats = { days: Day[]; hcsHistogram: { from: number; to: number; count: number }[]; total: number }

let windowDays = 30

export function overviewView(): HTMLElement {
  const periods = h(
    'div',
    { class: 'switch', role: 'group', 'aria-label': 'Period' },
    ...[7, 30, 90].map((d) =>
      h(
        'button',
        { type: 'button', 'data-days': d, 'aria-pressed': String(d === windowDays), onclick: () => void setWindow(d) },
        `${d} days`
      )
    )
  )
  const section = h(
    'div',
    {},
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-title' },
      h('h2', { id: 'usage-title' }, 'Plan usage'),
      h('div', { id: 'usage' }, h('p', {}, 'Loading…')),
      h('button', { type: 'button', onclick: () => void loadUsage() }, 'Refresh')
    ),
    h(
      'section',
      { class: 'card wide', 'aria-labelledby': 'stats-title' },
      h('h2', { id: 'stats-title' }, 'Verdicts over time'),
      periods,
      h('div', { id: 'stats' }, h('p', {}, 'Loading…'))
    )
  )
  queueMicrotask(() => {
    void loadUsage()
    void loadStats()
  })
  return section
}

async function setWindow(days: number) {
  windowDays = days
  for (const b of document.querySelectorAll<HTMLElement>('[data-days]'))
    b.setAttribute('aria-pressed', String(b.dataset.days === String(days)))
  await loadStats()
}

async function loadUsage() {
  const box = $('usage')
  try {
    const { getPlanUsage: u } = await api.graphql<{ getPlanUsage: Usage }>(
      'query { getPlanUsage { planId displayName sessionsUsed sessionsLimit percentUsed periodStart periodEnd } }'
    )
    const pct = Math.min(100, Math.max(0, u.percentUsed))
    const bar = h('progress', { id: 'usage-bar', max: 100, value: pct, 'aria-labelledby': 'usage-text' })
    if (pct >= 90) bar.classList.add('high')
    box.replaceChildren(
      h(
        'p',
        { id: 'usage-text' },
        h('strong', {}, `${u.displayName} plan: `),
        `${u.sessionsUsed.toLocaleString()} of ${u.sessionsLimit.toLocaleString()} sessions used (${u.percentUsed.toFixed(1)}%)`
      ),
      bar,
      h('p', { class: 'hint' }, `Billing period ${fmtDay(u.periodStart)} – ${fmtDay(u.periodEnd)} (UTC).`)
    )
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Usage is not available right now.'))
    fail(error)
  }
}

const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })

async function loadStats() {
  const box = $('stats')
  const asked = windowDays
  try {
    const { verdictStats: s } = await api.graphql<{ verdictStats: Stats }>(
      `query Stats($days: Int) { verdictStats(days: $days) {
         days { day humanVerified suspicious bot insufficientData unscored } hcsHistogram { from to count } total } }`,
      { days: asked }
    )
    if (asked !== windowDays) return
    const perDay = stackedBars(
      s.days.map((d) => ({ label: shortDay(d.day), values: d as unknown as Record<string, number> })),
      VERDICT_SERIES,
      `Sessions per day by verdict, last ${asked} days`,
      `${plural(s.total, 'session')} from ${s.days[0]?.day ?? '—'} to ${s.days[s.days.length - 1]?.day ?? '—'} (UTC days of first activity); the table below lists every day.`
    )
    const hist = stackedBars(
      s.hcsHistogram.map((b) => ({ label: `${b.from}–${b.to}`, values: { count: b.count } })),
      [{ key: 'count', label: 'sessions', cls: 'fill-hcs' }],
      `Human-confidence scores, last ${asked} days`,
      `${plural(
        s.hcsHistogram.reduce((n, b) => n + b.count, 0),
        'scored session'
      )} in ten bands of 10 points; the table below lists each band.`
    )
    box.replaceChildren(
      h('p', { id: 'stats-total' }, `${plural(s.total, 'session')} in the last ${asked} days.`),
      h('figure', { class: 'figure', id: 'chart-days' }, perDay, legend(VERDICT_SERIES)),
      h(
        'details',
        {},
        h('summary', {}, 'Sessions per day, as a table'),
        table(
          'Sessions per day by verdict',
          ['Day (UTC)', ...VERDICT_SERIES.map((v) => v.label), 'total'],
          s.days.map((d) => [
            d.day,
            ...VERDICT_SERIES.map((v) => String((d as unknown as Record<string, number>)[v.key] ?? 0)),
            String(d.humanVerified + d.suspicious + d.bot + d.insufficientData + d.unscored),
          ]),
          { id: 'days-table' }
        )
      ),
      h('h3', {}, 'Human-confidence score distribution'),
      h('figure', { class: 'figure', id: 'chart-hcs' }, hist),
      h(
        'details',
        {},
        h('summary', {}, 'Score bands, as a table'),
        table(
          'Sessions per human-confidence score band',
          ['HCS band', 'sessions'],
          s.hcsHistogram.map((b) => [`${b.from} to ${b.to === 100 ? '100' : `under ${b.to}`}`, String(b.count)]),
          { id: 'hcs-table' }
        )
      )
    )
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Verdict statistics are not available right now.'))
    fail(error)
  }
}
