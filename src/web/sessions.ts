// The "Sessions" view (newest first, filters, paging by cursor) and one session explained.
import * as api from './api'
import { kindWords, LANES, trajectory, timeline, type Point, type TimelineEvent } from './charts'
import { $, fail, field, fmtDate, h, plural, say, submitting, table, value, VERDICT_WORDS, verdictBadge } from './dom'

export type Reason = { code: string; meaning: string; detail: string | null }
export type Summary = {
  sessionId: string
  hcs: number | null
  m3Score: number | null
  verdict: string | null
  reasons: Reason[]
  signals: number
  batches: number
  firstSeenAt: string
  lastSeenAt: string
  scoredAt: string | null
  modelVersion: string | null
  label: 'human' | 'bot' | null
  labelNote: string | null
  labeledAt: string | null
}
type Page = { sessions: Summary[]; endCursor: string | null; hasNextPage: boolean }
type Detail = {
  session: Summary
  durationMs: number
  trajectory: Point[]
  timeline: TimelineEvent[]
  eventCounts: { kind: string; count: number }[]
}

const SUMMARY = `sessionId hcs m3Score verdict reasons { code meaning detail } signals batches firstSeenAt lastSeenAt scoredAt modelVersion label labelNote labeledAt`
const PAGE_SIZE = 25

type Filters = { verdict: string | null; label: string | null; from: string | null; to: string | null }
let filters: Filters = { verdict: null, label: null, from: null, to: null }
let rows: Summary[] = []

export const fmtHcs = (hcs: number | null) => (hcs === null ? '—' : hcs.toFixed(1))
const shortId = (id: string) => id.slice(0, 8)

function selectField(id: string, label: string, options: [string, string][], selected: string | null): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('select', { id, name: id }, ...options.map(([v, text]) => h('option', { value: v, selected: v === (selected ?? '') }, text)))
  )
}

/** A date input (YYYY-MM-DD, UTC day) to the contract's timestamps: `to` is exclusive, so the day after. */
const dayStart = (d: string) => (d ? `${d}T00:00:00.000Z` : null)
const dayAfter = (d: string) => (d ? new Date(Date.parse(`${d}T00:00:00.000Z`) + 86_400_000).toISOString() : null)

export function sessionsView(): HTMLElement {
  const form = h(
    'form',
    { id: 'session-filters', class: 'filters', 'aria-label': 'Filter sessions' },
    selectField('filter-verdict', 'Verdict', [['', 'any'], ...Object.entries(VERDICT_WORDS)], filters.verdict),
    selectField(
      'filter-label',
      'Label',
      [
        ['', 'any'],
        ['human', 'labelled human'],
        ['bot', 'labelled bot'],
      ],
      filters.label
    ),
    field('filter-from', 'From (UTC day)', { type: 'date', value: filters.from ?? undefined }),
    field('filter-to', 'To (UTC day, included)', { type: 'date', value: filters.to ?? undefined }),
    h('button', { type: 'submit', class: 'primary' }, 'Show')
  ) as HTMLFormElement
  submitting(form, async () => {
    filters = {
      verdict: value(form, 'filter-verdict') || null,
      label: value(form, 'filter-label') || null,
      from: value(form, 'filter-from') || null,
      to: value(form, 'filter-to') || null,
    }
    await loadSessions(null)
  })
  const section = h(
    'section',
    { class: 'card wide', 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title' }, 'Sessions'),
    h('p', { class: 'hint' }, 'Newest first. Open a session to see its path, its events and why it got its verdict.'),
    form,
    h('div', { id: 'sessions', 'aria-live': 'polite' }, h('p', {}, 'Loading…')),
    h('div', { id: 'sessions-more' })
  )
  queueMicrotask(() => void loadSessions(null).catch(fail))
  return section
}

async function loadSessions(after: string | null) {
  const { listSessions } = await api.graphql<{ listSessions: Page }>(
    `query Sessions($first: Int, $after: String, $verdict: Verdict, $label: Label, $from: String, $to: String) {
       listSessions(first: $first, after: $after, verdict: $verdict, label: $label, from: $from, to: $to) {
         sessions { ${SUMMARY} } endCursor hasNextPage } }`,
    {
      first: PAGE_SIZE,
      after,
      verdict: filters.verdict,
      label: filters.label,
      from: filters.from ? dayStart(filters.from) : null,
      to: filters.to ? dayAfter(filters.to) : null,
    }
  )
  rows = after ? [...rows, ...listSessions.sessions] : listSessions.sessions
  $('sessions').replaceChildren(
    rows.length ? sessionsTable(rows) : h('p', {}, 'No sessions match. Sessions appear here as soon as the SDK sends their first batch.')
  )
  $('sessions-more').replaceChildren(
    listSessions.hasNextPage && listSessions.endCursor
      ? h(
          'button',
          {
            type: 'button',
            id: 'load-more',
            onclick: async (e: Event) => {
              const b = e.currentTarget as HTMLButtonElement
              b.disabled = true
              try {
                await loadSessions(listSessions.endCursor)
              } catch (error) {
                b.disabled = false
                fail(error)
              }
            },
          },
          'Load more sessions'
        )
      : rows.length
        ? h(
            'p',
            { class: 'hint' },
            rows.length === 1 ? 'The one matching session is shown.' : `All ${rows.length.toLocaleString()} sessions shown.`
          )
        : ''
  )
}

function reasonWords(reasons: Reason[]): string {
  return reasons.length ? reasons.map((r) => r.meaning).join('; ') : '—'
}

function sessionsTable(list: Summary[]): HTMLElement {
  return table(
    'Sessions, newest first',
    ['Session', 'HCS', 'Verdict', 'Reasons', 'Signals', 'Batches', 'First seen', 'Last seen', 'Label'],
    list.map((s) => [
      h(
        'a',
        { href: `#session/${s.sessionId}`, class: 'session-link', 'aria-label': `Session ${s.sessionId}` },
        h('code', {}, shortId(s.sessionId))
      ),
      fmtHcs(s.hcs),
      verdictBadge(s.verdict),
      h('span', { class: 'reasons-text' }, reasonWords(s.reasons)),
      s.signals.toLocaleString(),
      s.batches.toLocaleString(),
      fmtDate(s.firstSeenAt),
      fmtDate(s.lastSeenAt),
      s.label ? h('span', { class: `badge label-${s.label}` }, s.label) : '—',
    ]),
    { id: 'sessions-table' }
  )
}

// ── One session ───────────────────────────────────────────────────────────

export function sessionView(sessionId: string): HTMLElement {
  const section = h(
    'section',
    { class: 'card wide', 'aria-labelledby': 'session-title' },
    h('p', {}, h('a', { href: '#sessions' }, '← All sessions')),
    h('h2', { id: 'session-title', tabindex: -1 }, 'Session ', h('code', {}, sessionId)),
    h('div', { id: 'session-detail' }, h('p', {}, 'Loading…'))
  )
  queueMicrotask(() => void loadSession(sessionId))
  return section
}

async function loadSession(sessionId: string) {
  const box = $('session-detail')
  try {
    const { session } = await api.graphql<{ session: Detail | null }>(
      `query Session($id: ID!) { session(sessionId: $id) {
         session { ${SUMMARY} } durationMs trajectory { t x y kind } timeline { t kind keyClass dy } eventCounts { kind count } } }`,
      { id: sessionId }
    )
    if (!session) {
      box.replaceChildren(h('p', {}, 'No such session in your organization.'))
      return
    }
    box.replaceChildren(...detail(session))
  } catch (error) {
    box.replaceChildren(h('p', {}, 'This session is not available right now.'))
    fail(error)
  }
}

function detail(d: Detail): Node[] {
  const s = d.session
  const facts = h('dl', { class: 'facts', id: 'session-facts' })
  const add = (term: string, ...desc: (Node | string)[]) => facts.append(h('dt', {}, term), h('dd', {}, ...desc))
  add('Verdict', verdictBadge(s.verdict))
  add('Human-confidence score', s.hcs === null ? 'not scored yet' : `${s.hcs.toFixed(1)} / 100`)
  add('Model probability (human)', s.m3Score === null ? '—' : s.m3Score.toFixed(4))
  add('Signals', `${s.signals.toLocaleString()} in ${plural(s.batches, 'batch', 'batches')}`)
  add('Duration', `${(d.durationMs / 1000).toFixed(1)} s`)
  add('First seen', fmtDate(s.firstSeenAt))
  add('Last seen', fmtDate(s.lastSeenAt))
  add('Scored', fmtDate(s.scoredAt))
  add('Model version', s.modelVersion ?? '—')

  const reasons = s.reasons.length
    ? h(
        'ul',
        { class: 'reasons', id: 'session-reasons' },
        ...s.reasons.map((r) =>
          h(
            'li',
            {},
            h('strong', {}, r.meaning),
            r.detail ? h('span', { class: 'reason-detail' }, ` — ${r.detail}`) : null,
            ' ',
            h('code', { class: 'muted' }, r.code)
          )
        )
      )
    : h('p', { id: 'session-reasons' }, 'No reasons were given for this score.')

  const path = d.trajectory.length
    ? h(
        'figure',
        { class: 'figure', id: 'session-path' },
        trajectory(d.trajectory, 'Pointer path, drawn to scale'),
        h('figcaption', { class: 'hint' }, pathCaption(d.trajectory))
      )
    : h('p', { id: 'session-path' }, 'No pointer or touch movement was recorded in this session.')

  const counts = new Map(d.eventCounts.map((c) => [c.kind, c.count]))
  const laneRows = LANES.map((lane) => [
    lane.label,
    lane.kinds
      .filter((k) => counts.has(k))
      .map((k) => `${kindWords(k)} ${counts.get(k)!.toLocaleString()}`)
      .join(', ') || '0',
  ])
  const keyClasses = new Map<string, number>()
  for (const e of d.timeline) if (e.kind === 'kd' && e.keyClass) keyClasses.set(e.keyClass, (keyClasses.get(e.keyClass) ?? 0) + 1)

  return [
    h('div', { class: 'split' }, h('div', {}, facts), labelBox(s)),
    h('h3', {}, 'Why this verdict'),
    reasons,
    h('h3', {}, 'Pointer path'),
    path,
    h('h3', {}, 'Timeline'),
    h('figure', { class: 'figure', id: 'session-timeline' }, timeline(d.timeline, d.durationMs)),
    keyClasses.size
      ? h(
          'p',
          { class: 'hint' },
          `Keys pressed, by class (values are never collected): ${[...keyClasses].map(([k, n]) => `${k} ${n}`).join(', ')}.`
        )
      : null,
    table('Stored events by kind', ['Lane', 'Events (all stored, before downsampling)'], laneRows, { id: 'event-counts' }),
  ].filter((n): n is HTMLElement => n !== null)
}

function pathCaption(points: Point[]): string {
  const xs = points.map((p) => p.x)
  const ys = points.map((p) => p.y)
  const w = Math.round(Math.max(...xs) - Math.min(...xs))
  const hh = Math.round(Math.max(...ys) - Math.min(...ys))
  return `${plural(points.length, 'point')}, ${w} × ${hh} CSS px. Green: start; red: clicks; blue: pointer; purple: touch.`
}

function labelBox(s: Summary): HTMLElement {
  const current = h(
    'p',
    { id: 'label-current' },
    s.label
      ? `Labelled ${s.label}${s.labeledAt ? ` on ${fmtDate(s.labeledAt)}` : ''}${s.labelNote ? ` — “${s.labelNote}”` : ''}.`
      : 'Not labelled yet.'
  )
  const form = h(
    'form',
    { id: 'label-form', class: 'label-box', 'aria-labelledby': 'label-title' },
    h('h3', { id: 'label-title' }, 'Your label'),
    h('p', { class: 'hint' }, 'Tell us what this session really was. Labels measure how often the verdicts are wrong on your traffic.'),
    current,
    field('label-note', 'Note (optional)', { rows: 2, maxlength: 500 }, undefined, 'textarea'),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', value: 'human', 'aria-pressed': String(s.label === 'human') }, 'Label as human'),
      h('button', { type: 'submit', value: 'bot', 'aria-pressed': String(s.label === 'bot') }, 'Label as bot')
    )
  ) as HTMLFormElement
  ;(form.querySelector('#label-note') as HTMLTextAreaElement).value = s.labelNote ?? ''
  let chosen = 'human'
  for (const b of form.querySelectorAll('button')) b.addEventListener('click', () => (chosen = b.value))
  submitting(form, async () => {
    const note = value(form, 'label-note')
    const { labelSession } = await api.graphql<{ labelSession: { label: 'human' | 'bot'; note: string | null; labeledAt: string } }>(
      `mutation Label($id: ID!, $label: Label!, $note: String) { labelSession(sessionId: $id, label: $label, note: $note) { label note labeledAt } }`,
      { id: s.sessionId, label: chosen, note: note || null }
    )
    s.label = labelSession.label
    s.labelNote = labelSession.note
    s.labeledAt = labelSession.labeledAt
    form.replaceWith(labelBox(s))
    say(`Session labelled ${labelSession.label}.`)
  })
  return form
}
