// The "Accuracy" view (issue 18): error rates measured on the organization's own labels, a threshold
// simulator, the history of threshold changes, and the export of labelled sessions.
import * as api from './api'
import { $, fail, fmtDate, fmtPct, h, plural, say, table } from './dom'

type Rate = { count: number; total: number; share: number | null; low: number | null; high: number | null }
type Thresholds = { botBelow: number; humanAbove: number }
type Rates = {
  thresholds: Thresholds
  labelledHumans: number
  labelledBots: number
  humansCalledBot: Rate
  humansCalledSuspicious: Rate
  botsLetThrough: Rate
}
type Counts = { humanVerified: number; suspicious: number; bot: number; insufficientData: number; unscored: number }
type Simulation = { rates: Rates; verdicts: Counts; current: Counts }
type Change = { changedAt: string; changedBy: string; previous: Thresholds; next: Thresholds }

const RATE = 'count total share low high'
const RATES = `thresholds { botBelow humanAbove } labelledHumans labelledBots humansCalledBot { ${RATE} } humansCalledSuspicious { ${RATE} } botsLetThrough { ${RATE} }`
const COUNTS = 'humanVerified suspicious bot insufficientData unscored'
/** Slider moves closer together than this are sent as one simulation. */
const DEBOUNCE_MS = 150

let canManage = false

export function accuracyView(role: api.Organization['role']): HTMLElement {
  canManage = role !== 'member'
  const view = h(
    'div',
    {},
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'rates-title' },
      h('h2', { id: 'rates-title' }, 'Accuracy on your labelled sessions'),
      h(
        'p',
        { class: 'hint' },
        'Measured on the sessions you labelled, at your current thresholds. The interval is where the true rate lies with 95 % confidence (Wilson); few labels give wide intervals.'
      ),
      h('div', { id: 'rates' }, h('p', {}, 'Loading…'))
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'simulator-title' },
      h('h2', { id: 'simulator-title' }, 'Try other thresholds'),
      h('div', { id: 'simulator' }, h('p', {}, 'Loading…'))
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'history-title' },
      h('h2', { id: 'history-title' }, 'Threshold history'),
      h('div', { id: 'history' }, h('p', {}, 'Loading…'))
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'export-title' },
      h('h2', { id: 'export-title' }, 'Export labelled sessions'),
      h('p', {}, 'Every labelled session with its stored signals and your label, one JSON object per line (NDJSON), for retraining.'),
      canManage
        ? h(
            'button',
            { type: 'button', id: 'export-labels', onclick: (e: Event) => void exportLabels(e.currentTarget as HTMLButtonElement) },
            'Download the export'
          )
        : h('p', { class: 'hint' }, 'Only owners and admins can export.')
    )
  )
  queueMicrotask(() => {
    void loadRates()
    void loadSimulator()
    void loadHistory()
  })
  return view
}

function ratesTable(r: Rates, id: string): HTMLElement {
  const row = (what: string, rate: Rate, of: string) => [
    what,
    `${rate.count.toLocaleString()} of ${plural(rate.total, of)}`,
    fmtPct(rate.share),
    rate.low === null || rate.high === null ? '—' : `${fmtPct(rate.low)} – ${fmtPct(rate.high)}`,
  ]
  return table(
    'Error rates on labelled sessions',
    ['', 'Count', 'Share', '95 % interval'],
    [
      row('Humans called bot', r.humansCalledBot, 'labelled human'),
      row('Humans called suspicious', r.humansCalledSuspicious, 'labelled human'),
      row('Bots let through (called human)', r.botsLetThrough, 'labelled bot'),
    ],
    { id }
  )
}

const basis = (r: Rates) =>
  `Based on ${plural(r.labelledHumans, 'session')} labelled human and ${plural(r.labelledBots, 'session')} labelled bot; thresholds: bot below ${r.thresholds.botBelow}, human verified from ${r.thresholds.humanAbove}.`

async function loadRates() {
  const box = $('rates')
  try {
    const { errorRates } = await api.graphql<{ errorRates: Rates }>(`{ errorRates { ${RATES} } }`)
    box.replaceChildren(h('p', { id: 'rates-basis' }, basis(errorRates)), ratesTable(errorRates, 'rates-table'))
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Error rates are not available right now.'))
    fail(error)
  }
}

async function loadHistory() {
  const box = $('history')
  try {
    const { thresholdHistory } = await api.graphql<{ thresholdHistory: Change[] }>(
      '{ thresholdHistory { changedAt changedBy previous { botBelow humanAbove } next { botBelow humanAbove } } }'
    )
    box.replaceChildren(
      thresholdHistory.length
        ? table(
            'Threshold changes, newest first',
            ['When', 'By', 'Before (bot below / human from)', 'After'],
            thresholdHistory.map((c) => [
              fmtDate(c.changedAt),
              c.changedBy,
              `${c.previous.botBelow} / ${c.previous.humanAbove}`,
              `${c.next.botBelow} / ${c.next.humanAbove}`,
            ]),
            { id: 'history-table' }
          )
        : h('p', {}, 'Never changed: the defaults apply (bot below 30, human verified from 70).')
    )
  } catch (error) {
    box.replaceChildren(h('p', {}, 'The history is not available right now.'))
    fail(error)
  }
}

function slider(id: string, label: string, v: number): HTMLElement {
  return h(
    'div',
    { class: 'field slider' },
    h('label', { for: id }, label, ' ', h('output', { id: `${id}-value`, for: id }, String(v))),
    h('input', { id, name: id, type: 'range', min: 1, max: 99, step: 1, value: v, disabled: !canManage })
  )
}

async function loadSimulator() {
  const box = $('simulator')
  let current: Thresholds
  try {
    ;({ verdictThresholds: current } = await api.graphql<{ verdictThresholds: Thresholds }>(
      '{ verdictThresholds { botBelow humanAbove } }'
    ))
  } catch (error) {
    box.replaceChildren(h('p', {}, 'The simulator is not available right now.'))
    fail(error)
    return
  }
  const bot = slider('sim-bot', 'Bot below', current.botBelow)
  const human = slider('sim-human', 'Human verified from', current.humanAbove)
  const botInput = bot.querySelector('input') as HTMLInputElement
  const humanInput = human.querySelector('input') as HTMLInputElement
  const figures = h('div', { id: 'sim-figures', 'aria-live': 'polite' })
  const apply = canManage
    ? h(
        'button',
        { type: 'button', class: 'primary', id: 'sim-apply', disabled: true, onclick: () => void applyThresholds() },
        'Apply these thresholds'
      )
    : null
  box.replaceChildren(
    h(
      'p',
      { class: 'hint' },
      canManage
        ? 'Move the sliders to see what your labelled sessions and all your sessions of the last 30 days would have been called. Nothing changes until you apply.'
        : 'Read-only: only owners and admins can try and apply thresholds. These are the current ones.'
    ),
    h('div', { class: 'sliders' }, bot, human),
    figures,
    apply ? h('p', { class: 'actions' }, apply) : ''
  )

  let timer: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  const read = (): Thresholds => ({ botBelow: Number(botInput.value), humanAbove: Number(humanInput.value) })
  const simulate = async () => {
    const t = read()
    const mine = ++asked
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString()
    try {
      const { simulateThresholds: s } = await api.graphql<{ simulateThresholds: Simulation }>(
        `query Sim($bot: Float!, $human: Float!, $from: String) { simulateThresholds(botBelow: $bot, humanAbove: $human, from: $from) {
           rates { ${RATES} } verdicts { ${COUNTS} } current { ${COUNTS} } } }`,
        { bot: t.botBelow, human: t.humanAbove, from }
      )
      // A slower answer to an older position must not overwrite a newer one.
      if (mine !== asked) return
      figures.dataset.bot = String(t.botBelow)
      figures.dataset.human = String(t.humanAbove)
      figures.replaceChildren(
        h('p', {}, basis(s.rates)),
        ratesTable(s.rates, 'sim-rates'),
        h('h3', {}, 'All sessions of the last 30 days'),
        table(
          'Verdicts of the last 30 days',
          ['Verdict', 'With these thresholds', 'As stored now'],
          (
            [
              ['human verified', 'humanVerified'],
              ['suspicious', 'suspicious'],
              ['bot', 'bot'],
              ['insufficient data', 'insufficientData'],
              ['not scored yet', 'unscored'],
            ] as [string, keyof Counts][]
          ).map(([label, k]) => [label, s.verdicts[k].toLocaleString(), s.current[k].toLocaleString()]),
          { id: 'sim-verdicts' }
        )
      )
      if (apply) (apply as HTMLButtonElement).disabled = t.botBelow === current.botBelow && t.humanAbove === current.humanAbove
    } catch (error) {
      if (mine === asked) fail(error)
    }
  }
  const moved = (which: 'bot' | 'human') => {
    // The two thresholds may meet but never cross (bot below ≤ human from).
    if (Number(botInput.value) > Number(humanInput.value)) {
      if (which === 'bot') humanInput.value = botInput.value
      else botInput.value = humanInput.value
    }
    $('sim-bot-value').textContent = botInput.value
    $('sim-human-value').textContent = humanInput.value
    clearTimeout(timer)
    timer = setTimeout(() => void simulate(), DEBOUNCE_MS)
  }
  botInput.addEventListener('input', () => moved('bot'))
  humanInput.addEventListener('input', () => moved('human'))
  await simulate()

  async function applyThresholds() {
    const t = read()
    if (
      !confirm(
        `Apply: bot below ${t.botBelow}, human verified from ${t.humanAbove}? Verdicts computed from now on use them; past verdicts stay as they are.`
      )
    )
      return
    try {
      const { setVerdictThresholds } = await api.graphql<{ setVerdictThresholds: Thresholds }>(
        'mutation Set($bot: Float!, $human: Float!) { setVerdictThresholds(botBelow: $bot, humanAbove: $human) { botBelow humanAbove } }',
        { bot: t.botBelow, human: t.humanAbove }
      )
      current = setVerdictThresholds
      if (apply) (apply as HTMLButtonElement).disabled = true
      say(`Thresholds applied: bot below ${current.botBelow}, human verified from ${current.humanAbove}.`)
      await Promise.all([loadRates(), loadHistory()])
    } catch (error) {
      fail(error)
    }
  }
}

async function exportLabels(button: HTMLButtonElement) {
  button.disabled = true
  try {
    const res = await api.download('/v1/labels/export')
    const blob = await res.blob()
    const lines = (await blob.text()).split('\n').filter(Boolean).length
    const url = URL.createObjectURL(blob)
    const a = h('a', { href: url, download: `labelled-sessions-${new Date().toISOString().slice(0, 10)}.ndjson`, hidden: true })
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
    say(`Export downloaded: ${plural(lines, 'labelled session')}.`)
  } catch (error) {
    fail(error)
  } finally {
    button.disabled = false
  }
}
