// An outside check on real people the model never saw: the Balabit Mouse Dynamics Challenge
// (Fülöp, Kovács, Kurics, Windhager-Pokol 2016; github.com/balabit/Mouse-Dynamics-Challenge; no licence
// file, so its data is not copied into this repository). Ten people at work on remote desktops: the
// mouse as the RDP client sent it (about 10 moves per second), not a browser's mousemove. It stands
// for people who browse inside a remote desktop or virtual desktop (VDI), where the page sees the
// moves the protocol delivers. Reads a local checkout:
//   BALABIT=<path to a checkout of that repository> npx bun ml/experiments/balabit.ts
import { execFileSync } from 'node:child_process'
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, type ScoreResult, scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'

const repo = process.env.BALABIT
if (!repo) throw new Error('set BALABIT to a checkout (or bare mirror) of balabit/Mouse-Dynamics-Challenge')
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { maxBuffer: 1 << 30 }).toString()
const WINDOW_S = Number(process.env.WINDOW_S ?? 60)

/** one Balabit session file → signals in ms (client clock), with Left/Right presses and wheel notches */
function toSignals(csv: string): Signal[] {
  const out: Signal[] = []
  for (const line of csv.split('\n').slice(1)) {
    const [, client, button, state, xs, ys] = line.split(',')
    if (!state) continue
    const t = Math.round(Number(client) * 1000)
    const x = Number(xs)
    const y = Number(ys)
    // the RDP client clamps the cursor to a 65535 sentinel off-screen now and then
    if (!Number.isFinite(t) || !Number.isFinite(x) || !Number.isFinite(y) || x > 10000 || y > 10000) continue
    if (state === 'Move' || state === 'Drag') out.push({ t, k: 'mm', x, y })
    else if (state === 'Pressed') out.push({ t, k: 'md', x, y })
    else if (state === 'Released') out.push({ t, k: 'mu', x, y })
    else if (button === 'Scroll') out.push({ t, k: 's', dy: state === 'Down' ? 100 : -100 })
  }
  // the client clock sometimes steps back by a few ms between packets; keep the order of arrival
  for (let i = 1; i < out.length; i++) if (out[i].t < out[i - 1].t) out[i].t = out[i - 1].t
  return out
}

const score = (signals: readonly Signal[]): ScoreResult =>
  scoreSession({
    signals,
    clientFeatures: windowFeatures(signals),
    replayed: false,
  })

const files = git('ls-tree', '-r', '--name-only', 'HEAD', 'training_files').split('\n').filter(Boolean)
type Tally = { n: number; bot: number; sus: number; ok: number; none: number; reasons: Map<string, number> }
const byUser = new Map<string, Tally>()
for (const f of files) {
  const user = f.split('/')[1]
  const all = toSignals(git('show', `HEAD:${f}`))
  const t = byUser.get(user) ?? { n: 0, bot: 0, sus: 0, ok: 0, none: 0, reasons: new Map() }
  byUser.set(user, t)
  // consecutive windows of WINDOW_S seconds with some movement in them
  const end = all.length ? all[all.length - 1].t : 0
  for (let start = 0; start + WINDOW_S * 1000 <= end; start += WINDOW_S * 1000) {
    const w = all.filter((s) => s.t >= start && s.t < start + WINDOW_S * 1000).map((s) => ({ ...s, t: s.t - start }))
    if (w.filter((s) => s.k === 'mm').length < 20) continue
    const r = score(w)
    t.n++
    if (r.verdict === 'bot') t.bot++
    else if (r.verdict === 'suspicious') t.sus++
    else if (r.verdict === 'human_verified') t.ok++
    else t.none++
    if (r.verdict === 'bot') for (const c of r.reasons) t.reasons.set(c, (t.reasons.get(c) ?? 0) + 1)
  }
}
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
