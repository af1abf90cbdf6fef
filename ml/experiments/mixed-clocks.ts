// Mouse strokes' sampling clocks switching between devices (session-features.ts pointerClocks; the rule is
// evidence.ts CLOCK_SWITCHES_MIN): in real people (ml/data, and Balabit's 60 s windows when BALABIT names a
// checkout, balabit-data.ts), in the DELBOT bots, and in sessions stitched from SapiMouse strokes of
// different people (ml/generators/stitch.ts, as the eval's stitched_human family: 8 windows each), with the
// shipped model's verdicts with the rule and without it; also real people's windows as headed browsers
// delivered them (ml/data/browser/people.jsonl.gz).
//   BALABIT=<checkout> npx bun run ml/experiments/mixed-clocks.ts
import { loadAllReal, loadPeopleThroughBrowsers, loadReal } from '../data/load'
import { stitchFromCorpus } from '../generators/index'
import { createRng, deriveSeed } from '../synth/prng'
import { windowFeatures } from '../../src/scoring/features'
import { judgeEvidence, MODEL, sessionEvidence } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { balabitWindows } from './balabit-data'

type Tally = { sessions: number; clean: number[]; most: number; coded: number; with: Map<string, number>; without: Map<string, number> }
const tallies = new Map<string, Tally>()
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)
function add(group: string, signals: readonly Signal[]) {
  const t = tallies.get(group) ?? { sessions: 0, clean: [] as number[], most: 0, coded: 0, with: new Map(), without: new Map() }
  tallies.set(group, t)
  const evidence = sessionEvidence({ signals, clientFeatures: windowFeatures(signals) })
  t.sessions++
  const clocks = evidence?.session?.pointerClocks
  if (clocks) {
    t.clean.push(clocks.clean)
    t.most = Math.max(t.most, clocks.switches)
  }
  const judged = judgeEvidence(MODEL, evidence)
  if (judged.reasons.includes('pointer_mixed_clocks')) t.coded++
  bump(t.with, judged.verdict)
  // the same session with its clocks read as one device's: the verdict the rule changed
  if (evidence?.session) evidence.session.pointerClocks = { clean: clocks?.clean ?? 0, off: 0, switches: 0 }
  bump(t.without, judgeEvidence(MODEL, evidence).verdict)
}

for (const s of loadAllReal()) add(`${s.source} ${s.label} ${s.family}`, s.signals)
// real people's windows as headed browsers delivered them (ml/data/browser/README.md)
for (const v of loadPeopleThroughBrowsers())
  add(`SapiMouse ${v.seconds} s windows through ${v.browser}${v.rate ? `, a ${v.rate} Hz mouse` : ''}`, v.signals)
const sapi = loadReal('sapimouse')
for (let i = 0; i < 400; i++) {
  add('stitched SapiMouse strokes (8 windows)', stitchFromCorpus(createRng(deriveSeed(20261129, 'mixed-clocks', i)), sapi))
}
if (process.env.BALABIT) balabitWindows(60, (_user, signals) => add('balabit human 60 s windows', signals))

const share = (m: Map<string, number>, n: number) =>
  ['bot', 'suspicious', 'human_verified'].map((v) => `${((100 * (m.get(v) ?? 0)) / n).toFixed(1)} %`).join(' · ')
console.log(
  '| sessions of | sessions | clean strokes (median) | most switches in one | `pointer_mixed_clocks` | bot · suspicious · human_verified, with the rule | without |'
)
console.log('|---|---:|---:|---:|---:|---|---|')
for (const [group, t] of tallies) {
  const clean = [...t.clean].sort((a, b) => a - b)[t.clean.length >> 1] ?? 0
  console.log(
    `| ${group} | ${t.sessions} | ${clean} | ${t.most} | ${t.coded} | ${share(t.with, t.sessions)} | ${share(t.without, t.sessions)} |`
  )
}
