// Contrastive negatives: a real human session with one human property of its
// pointer strokes taken away, the rest kept. A bot family the model has
// never seen is caught by what it lacks, not by what it shares with the bots
// in training; these negatives teach the model which human properties
// matter (speed that varies, steps that grow with the time between samples,
// corrections and jitter, asymmetric velocity profiles, curved paths), each
// on real paths, real timing and real task context. `waypoints` walks a
// polyline through a few points of the path at the original pace, so it
// turns corners without slowing down, as scripts that move between
// waypoints do; `distorted` adds white noise to every sample, as humanizers'
// "distortion" does. They are made only from
// the humans of the training folds.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'

export const PERTURBATIONS = [
  'constant_speed',
  'equal_steps',
  'smoothed',
  'eased',
  'bezier_path',
  'waypoints',
  'distorted',
  'stepwise',
] as const
export type Perturbation = (typeof PERTURBATIONS)[number]

const isMove = (s: Signal) => (s.k === 'mm' || s.k === 'tm') && Number.isFinite(s.x) && Number.isFinite(s.y)

/** index runs of consecutive moves (a stroke), split at pauses > 300 ms and at any other event */
function runs(signals: readonly Signal[]): number[][] {
  const out: number[][] = []
  let cur: number[] = []
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i]
    if (isMove(s) && (!cur.length || s.t - signals[cur[cur.length - 1]].t <= 300)) cur.push(i)
    else {
      if (cur.length) out.push(cur)
      cur = isMove(s) ? [i] : []
    }
  }
  if (cur.length) out.push(cur)
  return out
}

type P = { x: number; y: number }

/** the point at arc length `d` along the polyline */
function along(pts: readonly P[], cum: readonly number[], d: number): P {
  let j = 1
  while (j < pts.length - 1 && cum[j] < d) j++
  const seg = cum[j] - cum[j - 1]
  const u = seg > 0 ? Math.min(1, Math.max(0, (d - cum[j - 1]) / seg)) : 0
  return { x: pts[j - 1].x + (pts[j].x - pts[j - 1].x) * u, y: pts[j - 1].y + (pts[j].y - pts[j - 1].y) * u }
}

const minJerk = (u: number) => 10 * u ** 3 - 15 * u ** 4 + 6 * u ** 5

function perturbStroke(rng: Rng, kind: Perturbation, t: number[], pts: P[]): { t: number[]; pts: P[] } {
  const n = pts.length
  const cum = [0]
  for (let i = 1; i < n; i++) cum.push(cum[i - 1] + Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y))
  const total = cum[n - 1]
  const t0 = t[0]
  const dur = t[n - 1] - t0 || 1
  switch (kind) {
    case 'constant_speed':
      return { t, pts: t.map((ti) => along(pts, cum, (total * (ti - t0)) / dur)) }
    case 'eased':
      return { t, pts: t.map((ti) => along(pts, cum, total * minJerk((ti - t0) / dur))) }
    case 'equal_steps': {
      // an OS-cursor script: fixed-length steps, each after a sleep the page sees as 1–8 frames
      const steps = Math.max(2, n)
      const times: number[] = [t0]
      for (let i = 1; i < steps; i++) times.push(times[i - 1] + (1000 / 60) * rng.int(1, 8))
      return { t: times.map((v) => Math.round(v)), pts: times.map((_, i) => along(pts, cum, (total * i) / (steps - 1))) }
    }
    case 'smoothed': {
      const w = 4
      return {
        t,
        pts: pts.map((_, i) => {
          let sx = 0
          let sy = 0
          let c = 0
          for (let j = Math.max(0, i - w); j <= Math.min(n - 1, i + w); j++) {
            sx += pts[j].x
            sy += pts[j].y
            c++
          }
          return { x: sx / c, y: sy / c }
        }),
      }
    }
    case 'waypoints': {
      const k = Math.max(3, Math.min(n - 1, rng.int(4, 9)))
      const way: P[] = Array.from({ length: k + 1 }, (_, i) => along(pts, cum, (total * i) / k))
      const wc = [0]
      for (let i = 1; i < way.length; i++) wc.push(wc[i - 1] + Math.hypot(way[i].x - way[i - 1].x, way[i].y - way[i - 1].y))
      const wt = wc[wc.length - 1]
      // the original progress along the path, mapped onto the polyline
      return { t, pts: cum.map((c) => along(way, wc, total > 0 ? (c / total) * wt : 0)) }
    }
    case 'stepwise': {
      // a script that sets the cursor every few frames and sleeps in between while the page
      // still reports a move per frame: the cursor jumps, then stands still for whole frames
      const frame = 1000 / 60
      const every = rng.int(3, 6)
      const times: number[] = []
      const at: P[] = []
      let held: P = pts[0]
      for (let k = 0; t0 + k * frame <= t[n - 1]; k++) {
        const tk = t0 + k * frame
        if (k % every === 0) {
          let j = 0
          while (j < n - 1 && t[j + 1] <= tk) j++
          held = pts[j]
        }
        if (k % every === 0 || rng.next() < 0.7) {
          times.push(Math.round(tk * 10) / 10)
          at.push(held)
        }
      }
      return times.length >= 2 ? { t: times, pts: at } : { t, pts }
    }
    case 'distorted': {
      // white noise on every sample, as humanizers' "distortion" adds it: a hand's
      // own unsteadiness is slow (tremor, corrections) and carries over from sample to sample
      const sd = rng.uniform(0.7, 2.5)
      return { t, pts: pts.map((p) => ({ x: p.x + rng.normal(0, sd), y: p.y + rng.normal(0, sd) })) }
    }
    case 'bezier_path': {
      // the same speed along a cubic Bézier between the stroke's ends
      const a = pts[0]
      const b = pts[n - 1]
      const dx = b.x - a.x
      const dy = b.y - a.y
      const bend = () => rng.uniform(-0.4, 0.4)
      const c1 = { x: a.x + dx * 0.3 - dy * bend(), y: a.y + dy * 0.3 + dx * bend() }
      const c2 = { x: a.x + dx * 0.7 - dy * bend(), y: a.y + dy * 0.7 + dx * bend() }
      const at = (u: number): P => {
        const v = 1 - u
        return {
          x: v * v * v * a.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u * u * u * b.x,
          y: v * v * v * a.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u * u * u * b.y,
        }
      }
      return { t, pts: cum.map((c) => at(total > 0 ? c / total : 0)) }
    }
  }
}

/** the session with every pointer stroke of ≥ 4 moves perturbed; positions rounded to whole px as OS cursors report them */
export function perturbSession(rng: Rng, signals: readonly Signal[], kind: Perturbation): Signal[] {
  const out: Signal[] = signals.map((s) => ({ ...s }))
  const replaced = new Map<number, Signal[]>()
  for (const run of runs(signals)) {
    if (run.length < 4) continue
    const t = run.map((i) => signals[i].t)
    const pts = run.map((i) => ({ x: signals[i].x!, y: signals[i].y! }))
    const p = perturbStroke(rng, kind, t, pts)
    const k = signals[run[0]].k
    replaced.set(
      run[0],
      p.t.map((ti, j) => ({ t: ti, k, x: Math.round(p.pts[j].x), y: Math.round(p.pts[j].y) }))
    )
    for (const i of run.slice(1)) replaced.set(i, [])
  }
  const result: Signal[] = []
  for (let i = 0; i < out.length; i++) result.push(...(replaced.get(i) ?? [out[i]]))
  // equal_steps may move a stroke's later samples past the next event
  return result.sort((a, b) => a.t - b.t)
}
