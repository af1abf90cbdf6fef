// How often whole mouse movements are over in less than 60 ms (session-features.ts pointerFlashes; the rule
// is evidence.ts FLASHES_MIN): in real people (ml/data, and Balabit's 60 s windows when BALABIT names a
// checkout, balabit-data.ts), in the humanizer's recorded browser visits, and in visits saved by
// browser-bots.ts, firefox-bots.ts or webkit-bots.ts with SAVE=<folder> (given here as SAVED=<folder>).
// The saved visits are also judged with their moves delivered faster or slower than they were: every gap
// under 20 ms before a move scaled by 0.3–1.3, or set to 1, 2 or 3 ms or to 1 and 2 ms in turn, as another machine hands them over.
//   SAVED=/tmp/ff BALABIT=<checkout> npx bun run ml/experiments/flash-strokes.ts
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAllReal, loadBrowserVisits } from '../data/load'
import { sessionEvidenceOf } from '../../src/scoring/evidence'
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, scoreSession } from '../../src/scoring/service'
import { sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'
import { balabitWindows } from './balabit-data'

type Tally = { sessions: number; one: number; two: number; three: number; coded: number; most: number }
const tallies = new Map<string, Tally>()
function add(group: string, signals: readonly Signal[]) {
  const f = sessionFeatures(signals)
  const { flashes } = f.pointerFlashes
  const t = tallies.get(group) ?? { sessions: 0, one: 0, two: 0, three: 0, coded: 0, most: 0 }
  tallies.set(group, t)
  t.sessions++
  if (flashes >= 1) t.one++
  if (flashes >= 2) t.two++
  if (flashes >= 3) t.three++
  if (sessionEvidenceOf(MODEL, f).some((e) => e.codes.includes('pointer_flash_strokes'))) t.coded++
  t.most = Math.max(t.most, flashes)
}

for (const s of loadAllReal()) add(`${s.source} ${s.label} ${s.family}`, s.signals)
for (const v of loadBrowserVisits('humanizer_bezier')) add(`browser ${v.browser} humanizer_bezier`, v.signals)
/** the visit with every gap under 20 ms before a move made `pace(gap)` (whole milliseconds, as Firefox gives them) */
function paced(signals: readonly Signal[], pace: (gap: number) => number): Signal[] {
  let shift = 0
  return signals.map((s, i) => {
    const gap = i > 0 ? s.t - signals[i - 1].t : Number.POSITIVE_INFINITY
    if (s.k === 'mm' && gap < 20) shift += Math.round(pace(gap)) - gap
    return { ...s, t: s.t + shift }
  })
}
const PACES: [string, (gap: number) => number][] = [
  ...[0.3, 0.5, 0.7, 0.85, 1, 1.3].map((k): [string, (gap: number) => number] => [`scaled by ${k}`, (gap) => gap * k]),
  ...[1, 2, 3].map((ms): [string, (gap: number) => number] => [`set to ${ms} ms`, () => ms]),
  // half of them under 2 ms, half not: short of event_burst's half of all gaps
  [
    '1 and 2 ms in turn',
    (() => {
      let odd = false
      return () => ((odd = !odd) ? 1 : 2)
    })(),
  ],
]
const verdicts = new Map<string, Map<string, number>>()
const saved = process.env.SAVED
if (saved)
  for (const name of readdirSync(saved).filter((n) => n.endsWith('.json'))) {
    const signals: Signal[] = JSON.parse(readFileSync(join(saved, name), 'utf8')).signals
    const tool = name.replace(/-\d+\.json$/, '')
    add(`saved ${tool}`, signals)
    for (const [how, pace] of PACES) {
      const s = paced(signals, pace)
      const { verdict } = scoreSession({ signals: s, clientFeatures: windowFeatures(s), replayed: false })
      const key = `${tool}, ${how}`
      const m = verdicts.get(key) ?? new Map<string, number>()
      verdicts.set(key, m)
      m.set(verdict, (m.get(verdict) ?? 0) + 1)
    }
  }
if (process.env.BALABIT) balabitWindows(60, (_, w) => add('balabit 60 s windows', w))

console.log('| sessions of | sessions | ≥ 1 flash | ≥ 2 | ≥ 3 | `pointer_flash_strokes` | most flashes in one |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const [g, t] of [...tallies].sort())
  console.log(`| ${g} | ${t.sessions} | ${t.one} | ${t.two} | ${t.three} | ${t.coded} | ${t.most} |`)
if (verdicts.size) {
  console.log('\n| saved visits, their move gaps under 20 ms | verdicts |')
  console.log('|---|---|')
  for (const [key, m] of verdicts) console.log(`| ${key} | ${[...m].map(([v, n]) => `${v} ${n}`).join(', ')} |`)
}
