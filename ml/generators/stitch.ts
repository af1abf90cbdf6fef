// Bots made of real human movement: strokes cut from recordings of different
// people and joined into one session, or one recording replayed with a little
// noise. Each stroke alone is human; what gives them away is between strokes
// (changes of hand, device and rhythm) or across sessions (the same path twice).
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'

const POINTER = new Set(['mm', 'md', 'mu', 'c'])

/** a human stroke: moves up to and including the click that ends them, times from the stroke's first move */
type Stroke = { events: Signal[]; duration: number; end: { x: number; y: number } }

/**
 * Cuts a session into strokes: runs of pointer events separated by pauses of
 * more than `pauseMs` without a move, each ending after its click if it has one.
 */
export function cutStrokes(session: readonly Signal[], pauseMs = 300): Stroke[] {
  const out: Stroke[] = []
  let cur: Signal[] = []
  const close = () => {
    const moves = cur.filter((e) => e.x !== undefined && e.y !== undefined)
    if (moves.length >= 3) {
      const t0 = cur[0]!.t
      const last = moves[moves.length - 1]!
      out.push({ events: cur.map((e) => ({ ...e, t: e.t - t0 })), duration: cur[cur.length - 1]!.t - t0, end: { x: last.x!, y: last.y! } })
    }
    cur = []
  }
  for (const e of session) {
    if (!POINTER.has(e.k)) continue
    const prev = cur[cur.length - 1]
    if (prev && e.t - prev.t > pauseMs) close()
    cur.push(e)
    if (e.k === 'c') close()
  }
  close()
  return out
}

export type StitchOptions = {
  /** who recorded each session (e.g. the SapiMouse `user`); consecutive strokes come from different people. Default: each session is its own person */
  people?: readonly string[]
  /** session length to fill, ms (default 20–60 s) */
  durationMs?: number
  /** pause before a stroke cut, ms (default 300) */
  pauseMs?: number
  viewport?: { w: number; h: number }
}

/**
 * One session stitched from strokes of different people: each stroke is
 * translated so that it starts where the previous one ended (mirrored when it
 * would leave the viewport), and re-timed after a pause drawn from the pauses
 * people make between strokes (log-normal, median 600 ms).
 */
export function stitchStrokes(rng: Rng, humanSessions: readonly Signal[][], opts: StitchOptions = {}): Signal[] {
  const pauseMs = opts.pauseMs ?? 300
  const pools = humanSessions.map((s) => cutStrokes(s, pauseMs))
  const people = opts.people ?? humanSessions.map((_, i) => String(i))
  const usable = pools.map((p, i) => ({ p, who: people[i]! })).filter((x) => x.p.length > 0)
  if (!usable.length) return []
  const viewport = opts.viewport ?? { w: 1920, h: 1080 }
  // integer-ms recordings stay on integer ms
  // integer-ms, integer-px recordings stay on integer ms and px (a fraction would tell them apart from their sources)
  const whole = humanSessions.every((session) => session.every((e) => Number.isInteger(e.t)))
  const step = (v: number) => (whole ? Math.round(v) : Math.round(v * 10) / 10)
  const wholePx = humanSessions.every((session) =>
    session.every((e) => e.x === undefined || (Number.isInteger(e.x) && Number.isInteger(e.y)))
  )
  const px = (v: number) => (wholePx ? Math.round(v) : Math.round(v * 10) / 10)
  const duration = opts.durationMs ?? rng.uniform(20_000, 60_000)
  const out: Signal[] = []
  let t = step(rng.uniform(200, 2000))
  let pos = { x: rng.uniform(0.2, 0.8) * viewport.w, y: rng.uniform(0.2, 0.8) * viewport.h }
  let lastWho: string | null = null
  while (t < duration && out.length < 9000) {
    const others = usable.filter((u) => u.who !== lastWho)
    const from = rng.pick(others.length ? others : usable)
    lastWho = from.who
    const stroke = rng.pick(from.p)
    const first = stroke.events.find((e) => e.x !== undefined)!
    let dx = pos.x - first.x!
    let dy = pos.y - first.y!
    // mirror a stroke that would leave the page around its start point
    const leaves = (sx: number, sy: number) =>
      stroke.events.some(
        (e) =>
          e.x !== undefined &&
          (first.x! + sx * (e.x - first.x!) + dx < 0 ||
            first.x! + sx * (e.x - first.x!) + dx > viewport.w ||
            first.y! + sy * (e.y! - first.y!) + dy < 0 ||
            first.y! + sy * (e.y! - first.y!) + dy > viewport.h)
      )
    let sx = 1
    let sy = 1
    if (leaves(1, 1)) {
      const options: [number, number][] = [
        [-1, 1],
        [1, -1],
        [-1, -1],
      ]
      const fit = options.find(([a, b]) => !leaves(a, b))
      if (fit) [sx, sy] = fit
      else {
        // no mirror fits: start this stroke somewhere it fits instead (a jump, like a lifted mouse)
        dx = viewport.w / 2 - first.x!
        dy = viewport.h / 2 - first.y!
      }
    }
    for (const e of stroke.events) {
      const copy: Signal = { ...e, t: t + e.t }
      if (e.x !== undefined && e.y !== undefined) {
        copy.x = px(first.x! + sx * (e.x - first.x!) + dx)
        copy.y = px(first.y! + sy * (e.y - first.y!) + dy)
      }
      out.push(copy)
    }
    const end = out[out.length - 1]!
    const lastMove = [...out].reverse().find((e) => e.x !== undefined)!
    pos = { x: lastMove.x!, y: lastMove.y! }
    t = end.t + step(Math.max(pauseMs + 1, rng.logNormal(600, 0.7)))
  }
  return out
}

/** the number of recorded windows one stitched session draws its strokes from */
export const STITCH_WINDOWS = 8

/**
 * A stitched session as a farm would make one from a corpus of recorded windows: STITCH_WINDOWS windows
 * picked at random (a person may come up twice), then stitched with the same generator. The one recipe
 * the training rows, the eval, the experiment and the tests share.
 */
export function stitchFromCorpus(rng: Rng, corpus: readonly { signals: Signal[]; user: string }[]): Signal[] {
  const pick = Array.from({ length: STITCH_WINDOWS }, () => corpus[rng.int(0, corpus.length - 1)]!)
  return stitchStrokes(
    rng,
    pick.map((s) => s.signals),
    { people: pick.map((s) => s.user) }
  )
}

export type ReplayOptions = {
  /** sd of per-event time noise, ms (default 0.5–3) */
  timeNoiseMs?: number
  /** sd of per-event position noise, px (default 0.3–2) */
  positionNoisePx?: number
  /** a whole-session translation up to this many px (default 40) */
  maxShiftPx?: number
  /** time scale range, e.g. 0.9–1.1 (default 1: replayed at the recorded speed) */
  timeScale?: [number, number]
}

/**
 * A real session replayed: shifted in time and place, every event nudged by a
 * little time and position noise (order kept), as a replay bot that adds noise
 * to avoid exact duplicates would.
 */
export function replayWithJitter(rng: Rng, source: readonly Signal[], opts: ReplayOptions = {}): Signal[] {
  if (!source.length) return []
  const tNoise = opts.timeNoiseMs ?? rng.uniform(0.5, 3)
  const pNoise = opts.positionNoisePx ?? rng.uniform(0.3, 2)
  const maxShift = opts.maxShiftPx ?? 40
  const [lo, hi] = opts.timeScale ?? [1, 1]
  const scale = rng.uniform(lo, hi)
  const dx = rng.uniform(-maxShift, maxShift)
  const dy = rng.uniform(-maxShift, maxShift)
  const t0 = source[0]!.t
  const start = rng.uniform(0, 2000)
  // a replay of an integer-ms recording keeps integer ms; rounding is monotone, so the order holds
  const per = source.every((e) => Number.isInteger(e.t)) ? 1 : 10
  const perPx = source.every((e) => e.x === undefined || (Number.isInteger(e.x) && Number.isInteger(e.y))) ? 1 : 10
  let prev = 0
  return source.map((e) => {
    const t = Math.max(prev, start + (e.t - t0) * scale + rng.normal(0, tNoise))
    prev = t
    const out: Signal = { ...e, t: Math.round(t * per) / per }
    if (e.x !== undefined && e.y !== undefined && e.k !== 's') {
      out.x = Math.round((e.x + dx + rng.normal(0, pNoise)) * perPx) / perPx
      out.y = Math.round((e.y + dy + rng.normal(0, pNoise)) * perPx) / perPx
    }
    return out
  })
}
