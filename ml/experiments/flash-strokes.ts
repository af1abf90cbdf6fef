// How often whole mouse movements are over in less than 60 ms (session-features.ts pointerFlashes; the rule
// is evidence.ts FLASHES_MIN): in real people (ml/data, and Balabit's 60 s windows when BALABIT names a
// checkout, balabit-data.ts), in the humanizer's recorded browser visits, and in visits saved by
// browser-bots.ts, firefox-bots.ts or webkit-bots.ts with SAVE=<folder> (given here as SAVED=<folder>).
//   SAVED=/tmp/ff BALABIT=<checkout> npx bun run ml/experiments/flash-strokes.ts
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAllReal, loadBrowserVisits } from '../data/load'
import { sessionEvidenceOf } from '../../src/scoring/evidence'
import { MODEL } from '../../src/scoring/service'
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
const saved = process.env.SAVED
if (saved)
  for (const name of readdirSync(saved).filter((n) => n.endsWith('.json')))
    add(`saved ${name.replace(/-\d+\.json$/, '')}`, JSON.parse(readFileSync(join(saved, name), 'utf8')).signals)
if (process.env.BALABIT) balabitWindows(60, (_, w) => add('balabit 60 s windows', w))

console.log('| sessions of | sessions | ≥ 1 flash | ≥ 2 | ≥ 3 | `pointer_flash_strokes` | most flashes in one |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const [g, t] of [...tallies].sort())
  console.log(`| ${g} | ${t.sessions} | ${t.one} | ${t.two} | ${t.three} | ${t.coded} | ${t.most} |`)
