// An outside check of the keyboard rules on real typists the project never saw: free text typed by
// about 30 people (profiles and posts on mock Facebook, Instagram and Twitter pages), logged as key
// presses and releases with a nanosecond clock (AlvinKuruvilla/keystroke-data on GitHub; no licence
// file, so its data is not copied into this repository). It is the first real per-key typing the
// keyboard rules meet: until now they were judged against the 1,000 typists' figures only. Reads a
// local checkout (or bare mirror):
//   KEYSTROKES=<path> npx bun ml/experiments/keystrokes.ts
import { execFileSync } from 'node:child_process'
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, type ScoreResult, scoreSession } from '../../src/scoring/service'
import { type TypingStats, sessionFeatures } from '../../src/scoring/session-features'
import { MemoryReplayStore, REUSE_RULE, replayMaterial } from '../../src/scoring/replay'
import type { KeyClass, Signal } from '../../src/scoring/signals'
import { createRng } from '../synth/prng'

const repo = process.env.KEYSTROKES
if (!repo) throw new Error('set KEYSTROKES to a checkout (or bare mirror) of AlvinKuruvilla/keystroke-data')
const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { maxBuffer: 1 << 30 }).toString()
const WINDOW_S = Number(process.env.WINDOW_S ?? 60)

const MOD = /^Key\.(shift|ctrl|alt|cmd|caps_lock)/
const NAV = /^Key\.(left|right|up|down|home|end|page_up|page_down|tab|esc)/

/** the logger's key name → the SDK's key class (src/sdk/events.ts) */
function keyClass(key: string): KeyClass {
  if (key === 'Key.space') return 'space'
  if (key === 'Key.enter') return 'enter'
  if (key === 'Key.backspace' || key === 'Key.delete') return 'back'
  if (MOD.test(key)) return 'mod'
  if (NAV.test(key)) return 'nav'
  if (key.startsWith('Key.')) return 'other'
  return /^'\d'$/.test(key) ? 'digit' : 'char'
}

/** the step of a written time stamp in ns: 1 for an integer, 10^(exponent − decimals) for a float */
function stepNs(stamp: string): number {
  const m = /^\d\.(\d+)e\+(\d+)$/.exec(stamp)
  return m ? 10 ** (Number(m[2]) - m[1].length) : /^\d+$/.test(stamp) ? 1 : Number.POSITIVE_INFINITY
}

/**
 * One file → its recordings as key signals in ms, stamped to 0.1 ms as Chrome's event.timeStamp is.
 * A few files hold two recordings one after the other (the clock jumps back by hours or days): each
 * is a recording of its own. Some files write the clock as a float: kept where its digits resolve
 * 0.1 ms (1.652460089726634e+18), left out where they do not (1.65582e+18: 10 s steps).
 */
function toRecordings(csv: string): Signal[][] {
  const out: Signal[][] = []
  let cur: Signal[] = []
  let t0 = 0
  let prev = Number.NEGATIVE_INFINITY
  for (const line of csv.split('\n')) {
    const first = line.indexOf(',')
    const last = line.lastIndexOf(',')
    if (first < 0 || last <= first) continue
    const kind = line.slice(0, first)
    const stamp = line.slice(last + 1).trim()
    const ns = Number(stamp)
    if ((kind !== 'P' && kind !== 'R') || !Number.isFinite(ns) || stepNs(stamp) > 1e5) continue
    if (ns < prev) {
      out.push(cur)
      cur = []
    }
    if (!cur.length) t0 = ns
    prev = ns
    cur.push({ t: Math.round((ns - t0) / 1e5) / 10, k: kind === 'P' ? 'kd' : 'ku', kc: keyClass(line.slice(first + 1, last)) })
  }
  out.push(cur)
  return out.filter((r) => r.length)
}

const score = (signals: readonly Signal[]): ScoreResult =>
  scoreSession({
    signals,
    clientFeatures: windowFeatures(signals),
    replayed: false,
  })

type Tally = { n: number; bot: number; sus: number; ok: number; none: number; reasons: Map<string, number> }
const blank = (): Tally => ({ n: 0, bot: 0, sus: 0, ok: 0, none: 0, reasons: new Map() })
const files = git('ls-tree', '-r', '--name-only', 'HEAD')
  .split('\n')
  .filter((f) => /^(Facebook|Instagram|Twitter)\/[fit]_\d+\.csv$/.test(f))
const byUser = new Map<string, Tally>()
const windows: Signal[][] = []
const rows: { user: string; k: TypingStats; verdict: string; codes: string }[] = []
for (const f of files) {
  const user = f.split('_')[1].replace('.csv', '')
  const t = byUser.get(user) ?? blank()
  for (const all of toRecordings(git('show', `HEAD:${f}`))) {
    byUser.set(user, t)
    const end = all[all.length - 1].t
    // consecutive windows of WINDOW_S seconds with at least 8 presses (a short form)
    for (let start = 0; start < end; start += WINDOW_S * 1000) {
      const w = all.filter((s) => s.t >= start && s.t < start + WINDOW_S * 1000).map((s) => ({ ...s, t: s.t - start }))
      if (w.filter((s) => s.k === 'kd').length < 8) continue
      const r = score(w)
      const k = sessionFeatures(w).keyboard
      t.n++
      if (r.verdict === 'bot') t.bot++
      else if (r.verdict === 'suspicious') t.sus++
      else if (r.verdict === 'human_verified') t.ok++
      else t.none++
      if (r.verdict !== 'human_verified') for (const c of r.reasons) t.reasons.set(c, (t.reasons.get(c) ?? 0) + 1)
      if (k) rows.push({ user, k, verdict: r.verdict, codes: r.reasons.join(',') })
      windows.push(w)
    }
  }
}
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '–')
const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([c, k]) => `${c} ${k}`)
    .join(', ')
console.log(`model ${MODEL.model_version}; ${WINDOW_S} s windows with ≥ 8 key presses, keyboard only\n`)
console.log('| person | windows | flagged (bot) | suspicious | human_verified | insufficient | reasons (not verified) |')
console.log('|---|---:|---:|---:|---:|---:|---|')
const total = blank()
for (const [u, t] of [...byUser].sort((a, b) => Number(a[0]) - Number(b[0]))) {
  console.log(
    `| ${u} | ${t.n} | ${pct(t.bot, t.n)} | ${pct(t.sus, t.n)} | ${pct(t.ok, t.n)} | ${pct(t.none, t.n)} | ${top(t.reasons, 3)} |`
  )
  for (const k of ['n', 'bot', 'sus', 'ok', 'none'] as const) total[k] += t[k]
  for (const [c, n] of t.reasons) total.reasons.set(c, (total.reasons.get(c) ?? 0) + n)
}
console.log(
  `| **all ${byUser.size} people** | ${total.n} | ${pct(total.bot, total.n)} | ${pct(total.sus, total.n)} | ${pct(total.ok, total.n)} | ${pct(total.none, total.n)} | ${top(total.reasons, 4)} |`
)
// The cross-session store on real typists: every window in one organization, in a seeded random order,
// judged against the windows stored before it (as ingest does). No window is a replay, so each one
// judged reused (replayed_typing_rhythm) would be a person flagged.
const order = windows.map((_, i) => i)
const rng = createRng(20261126)
for (let i = order.length - 1; i > 0; i--) {
  const j = rng.int(0, i)
  ;[order[i], order[j]] = [order[j], order[i]]
}
const store = new MemoryReplayStore()
const judged = order.map((i, n) => store.judgeAndAdd('org', `w${i}`, n, replayMaterial(windows[i])))
const reaching = judged.filter((j) => j.latenciesMatched >= REUSE_RULE.latencies)
const best = judged.reduce((a, j) => (j.latenciesMatched > a.latenciesMatched ? j : a), judged[0])
console.log(
  `\nCross-session store, all ${windows.length} windows in one organization: judged reused **${judged.filter((j) => j.typingReused).length}**; the best alignment with an earlier window matched ${best.latenciesMatched} of ${best.latenciesCompared} informative latencies within 8 ms (the rule needs ${REUSE_RULE.latencies} and ${REUSE_RULE.latencyShare * 100} %); windows reaching ${REUSE_RULE.latencies} matched: ${reaching.length}, at most ${Math.round(100 * Math.max(0, ...reaching.map((j) => j.latenciesMatched / j.latenciesCompared)))} % of the compared ones.`
)
// one row per window: person, presses, rollover, latency CV, hold CV, median hold and latency (ms), tail ratio, verdict, reasons
if (process.env.KEYSTROKES_ROWS)
  for (const { user, k, verdict, codes } of rows)
    console.log(
      [
        user,
        k.downs,
        k.rollover.toFixed(3),
        k.latencyCv.toFixed(2),
        k.holdCv.toFixed(2),
        k.holdMedian.toFixed(0),
        k.latencyMedian.toFixed(0),
        k.latencyTail.toFixed(2),
        verdict,
        codes,
      ].join('	')
    )
