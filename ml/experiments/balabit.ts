// An outside check on real people the model never saw: the Balabit Mouse Dynamics Challenge
// (Fülöp, Kovács, Kurics, Windhager-Pokol 2016; github.com/balabit/Mouse-Dynamics-Challenge; no licence
// file, so its data is not copied into this repository). Ten people at work on remote desktops: the
// mouse as the RDP client sent it (about 10 moves per second), not a browser's mousemove. It stands
// for people who browse inside a remote desktop or virtual desktop (VDI), where the page sees the
// moves the protocol delivers. Reads a local checkout:
//   BALABIT=<path to a checkout of that repository> npx bun ml/experiments/balabit.ts
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, type ScoreResult, scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { balabitWindows } from './balabit-data'

const WINDOW_S = Number(process.env.WINDOW_S ?? 60)

const score = (signals: readonly Signal[]): ScoreResult =>
  scoreSession({
    signals,
    clientFeatures: windowFeatures(signals),
    replayed: false,
  })

type Tally = { n: number; bot: number; sus: number; ok: number; none: number; reasons: Map<string, number> }
const byUser = new Map<string, Tally>()
// consecutive windows of WINDOW_S seconds with some movement in them
balabitWindows(WINDOW_S, (user, w) => {
  const t = byUser.get(user) ?? { n: 0, bot: 0, sus: 0, ok: 0, none: 0, reasons: new Map() }
  byUser.set(user, t)
  const r = score(w)
  t.n++
  if (r.verdict === 'bot') t.bot++
  else if (r.verdict === 'suspicious') t.sus++
  else if (r.verdict === 'human_verified') t.ok++
  else t.none++
  if (r.verdict === 'bot') for (const c of r.reasons) t.reasons.set(c, (t.reasons.get(c) ?? 0) + 1)
})
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '–')
console.log(`model ${MODEL.model_version}; ${WINDOW_S} s windows with ≥ 20 moves\n`)
console.log('| person | windows | flagged (bot) | suspicious | human_verified | insufficient | reasons of the flagged |')
console.log('|---|---:|---:|---:|---:|---:|---|')
const total: Tally = { n: 0, bot: 0, sus: 0, ok: 0, none: 0, reasons: new Map() }
for (const [u, t] of [...byUser].sort()) {
  const top = [...t.reasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ')
  console.log(`| ${u} | ${t.n} | ${pct(t.bot, t.n)} | ${pct(t.sus, t.n)} | ${pct(t.ok, t.n)} | ${pct(t.none, t.n)} | ${top} |`)
  for (const k of ['n', 'bot', 'sus', 'ok', 'none'] as const) total[k] += t[k]
  for (const [c, n] of t.reasons) total.reasons.set(c, (total.reasons.get(c) ?? 0) + n)
}
const top = [...total.reasons]
  .sort((a, b) => b[1] - a[1])
  .slice(0, 4)
  .map(([c, n]) => `${c} ${n}`)
  .join(', ')
console.log(
  `| **all** | ${total.n} | ${pct(total.bot, total.n)} | ${pct(total.sus, total.n)} | ${pct(total.ok, total.n)} | ${pct(total.none, total.n)} | ${top} |`
)
