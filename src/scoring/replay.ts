// Reuse of recorded human material across sessions: a replayed recording with
// jitter, strokes of real people stitched into new sessions, a recorded typing
// rhythm played again. Each such session is human on its own; only the same
// material in another session of the organization gives it away.
//
// Pure functions: the ingest module's store (modules/ingest/replay-store.ts)
// and `npm run eval`'s in-memory store both call them, so both judge alike.
// docs/scoring.md, "Reused human material", has the rule and the measurements.
import { touchStrokes } from './fingerprint'
import type { Signal } from './signals'

// ----------------------------------------------------------------- strokes

/** resampled points per stroke: the descriptor is K positions relative to their centroid */
export const STROKE_POINTS = 12
/** a gap longer than this ends a stroke (stitchers cut at pauses; 300 ms is the stroke pause of session-features.ts) */
const STROKE_PAUSE_MS = 300

/**
 * Which strokes are distinctive enough to be unique to one recording: a short
 * straight move to a button is made by many people alike. Thresholds from
 * the real recordings (docs/scoring.md).
 */
export const DISTINCTIVE = {
  /** samples */
  minSamples: 10,
  /** path length, px */
  minPath: 150,
  /** RMS distance of the resampled points from their best straight line, px */
  minBend: 8,
}

/** a stroke's shape: STROKE_POINTS (x, y) pairs around their centroid, px */
export type StrokeShape = Float64Array

/** a stroke as recorded: times (they split mouse strokes) and positions */
type Raw = { readonly x: ArrayLike<number>; readonly y: ArrayLike<number> }

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * Mouse strokes: runs of `mm` with a position, ended by a gap over 300 ms,
 * time going back, or a press/release. Touch strokes: one contact `ts` … `te`
 * (the trajectory fingerprint's `touchStrokes`).
 */
function rawStrokes(signals: readonly Signal[]): { mouse: Raw[]; touch: Raw[] } {
  const mouse: Raw[] = []
  let x: number[] = []
  let y: number[] = []
  let last: number | undefined
  const closeMouse = () => {
    if (x.length) mouse.push({ x, y })
    x = []
    y = []
    last = undefined
  }
  for (const s of signals) {
    const k = s.k
    if (k === 'md' || k === 'mu') closeMouse()
    else if (k === 'mm') {
      if (!finite(s.x) || !finite(s.y) || !finite(s.t)) continue
      if (last !== undefined && (s.t - last > STROKE_PAUSE_MS || s.t < last)) closeMouse()
      last = s.t
      x.push(s.x)
      y.push(s.y)
    }
  }
  closeMouse()
  return { mouse, touch: touchStrokes(signals) }
}

/**
 * K positions: the mean position of each K-th of the stroke's samples (by
 * index, fractional at the edges), around their centroid. By index, not by
 * time: a replay re-times its events (timer jitter moves a fast hand's
 * position at a given time by px), while it keeps its samples. Means, not
 * single samples: per-sample position jitter averages out.
 */
function resample({ x, y }: Raw): StrokeShape {
  const n = x.length
  const out = new Float64Array(2 * STROKE_POINTS)
  const width = n / STROKE_POINTS
  for (let j = 0; j < n; j++) {
    // sample j covers [j, j + 1) of the index axis; bins are [i·width, (i + 1)·width)
    let from = j
    while (from < j + 1 - 1e-9) {
      const bin = Math.min(STROKE_POINTS - 1, Math.floor(from / width + 1e-9))
      const to = Math.min(j + 1, (bin + 1) * width)
      const w = Math.max(0, to - from)
      out[2 * bin] += w * x[j]!
      out[2 * bin + 1] += w * y[j]!
      from = bin === STROKE_POINTS - 1 ? j + 1 : to
    }
  }
  let cx = 0
  let cy = 0
  for (let i = 0; i < STROKE_POINTS; i++) {
    out[2 * i] /= width
    out[2 * i + 1] /= width
    cx += out[2 * i]!
    cy += out[2 * i + 1]!
  }
  cx /= STROKE_POINTS
  cy /= STROKE_POINTS
  for (let i = 0; i < STROKE_POINTS; i++) {
    out[2 * i] -= cx
    out[2 * i + 1] -= cy
  }
  return out
}

function pathLength({ x, y }: Raw): number {
  let d = 0
  for (let i = 1; i < x.length; i++) d += Math.hypot(x[i]! - x[i - 1]!, y[i]! - y[i - 1]!)
  return d
}

/** RMS distance of the (centred) points from their principal axis: 0 for a straight line, whatever its speed profile */
export function bendOf(shape: StrokeShape): number {
  let sxx = 0
  let syy = 0
  let sxy = 0
  for (let i = 0; i < STROKE_POINTS; i++) {
    const px = shape[2 * i]!
    const py = shape[2 * i + 1]!
    sxx += px * px
    syy += py * py
    sxy += px * py
  }
  // the smaller eigenvalue of the scatter matrix is the squared distance to the best line
  const tr = sxx + syy
  const det = sxx * syy - sxy * sxy
  const small = tr / 2 - Math.sqrt(Math.max(0, (tr * tr) / 4 - det))
  return Math.sqrt(Math.max(0, small) / STROKE_POINTS)
}

function distinctive(raw: Raw, shape: StrokeShape): boolean {
  return raw.x.length >= DISTINCTIVE.minSamples && pathLength(raw) >= DISTINCTIVE.minPath && bendOf(shape) >= DISTINCTIVE.minBend
}

/** mirror (sx, sy) of a shape: stitchers mirror strokes that would leave the page */
const MIRRORS: readonly [number, number][] = [
  [1, 1],
  [-1, 1],
  [1, -1],
  [-1, -1],
]

function mirrored(shape: StrokeShape, [sx, sy]: readonly [number, number]): StrokeShape {
  if (sx === 1 && sy === 1) return shape
  const out = new Float64Array(shape.length)
  for (let i = 0; i < STROKE_POINTS; i++) {
    out[2 * i] = sx * shape[2 * i]!
    out[2 * i + 1] = sy * shape[2 * i + 1]!
  }
  return out
}

/** RMS distance between two shapes' corresponding points, the better of the four mirrors of b, px */
export function shapeDistance(a: StrokeShape, b: StrokeShape): number {
  let best = Number.POSITIVE_INFINITY
  for (const [sx, sy] of MIRRORS) {
    let d = 0
    for (let i = 0; i < STROKE_POINTS; i++) {
      const dx = a[2 * i]! - sx * b[2 * i]!
      const dy = a[2 * i + 1]! - sy * b[2 * i + 1]!
      d += dx * dx + dy * dy
    }
    best = Math.min(best, d)
  }
  return Math.sqrt(best / STROKE_POINTS)
}

// ------------------------------------------------------------------ typing

/** a down-to-down gap longer than this breaks the rhythm (a pause, not typing) */
const TYPING_BREAK_MS = 2000
/** consecutive gaps per n-gram key */
export const RHYTHM_GRAM = 8

/**
 * Down-to-down latencies of the key presses, ms, rounded; -1 for a pause over
 * 2 s. Only `kd` is read: a replay keeps the order of presses, and key-up
 * order flips under jitter when keys overlap.
 */
export function keyLatencies(signals: readonly Signal[]): number[] {
  const out: number[] = []
  let prev: number | undefined
  for (const s of signals) {
    if (s.k !== 'kd' || !finite(s.t)) continue
    if (prev !== undefined) {
      const gap = s.t - prev
      out.push(gap < 0 || gap > TYPING_BREAK_MS ? -1 : Math.round(gap))
    }
    prev = s.t
  }
  return out
}

// ---------------------------------------------------------------- material

/** what a session leaves in the store: shapes of its distinctive strokes and its typing latencies (no positions, no keys typed) */
export type ReplayMaterial = {
  /** distinctive mouse strokes */
  mouse: StrokeShape[]
  /** distinctive touch strokes */
  touch: StrokeShape[]
  /** down-to-down latencies, ms (-1: a pause) */
  typing: number[]
}

export function replayMaterial(signals: readonly Signal[]): ReplayMaterial {
  const { mouse, touch } = rawStrokes(signals)
  const pick = (strokes: Raw[]) => {
    const out: StrokeShape[] = []
    for (const raw of strokes) {
      if (raw.x.length < DISTINCTIVE.minSamples) continue
      const shape = resample(raw)
      if (distinctive(raw, shape)) out.push(shape)
    }
    // a cap: a 50,000-signal session must not store thousands of shapes (the first ones stay the same as the session grows)
    return out.slice(0, MAX_STROKES)
  }
  const typing = keyLatencies(signals)
  return { mouse: pick(mouse), touch: pick(touch), typing: typing.slice(0, MAX_LATENCIES) }
}

/** at most this many shapes per modality and latencies per session are stored and compared */
export const MAX_STROKES = 64
export const MAX_LATENCIES = 1000

// -------------------------------------------------------------------- keys

/** cyrb53-style hash of 32-bit words to a non-negative 53-bit integer (a PostgreSQL bigint, exact in JS) */
function hashWords(words: readonly number[]): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (const w of words) {
    h1 = Math.imul(h1 ^ w, 2654435761)
    h2 = Math.imul(h2 ^ w, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (h2 & 0x1fffff) * 0x100000000 + (h1 >>> 0)
}

/** a stable 32-bit number of a text (the organization, hashed into every key: two organizations' keys differ, and the store filters by organization as well) */
function textWord(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** small deterministic generator for the bands' coordinates and grid offsets (the same in every process) */
function lcg(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 0x100000000
  }
}

/**
 * Locality-sensitive keys of a shape: each of 2 bands quantises 6 of its
 * coordinates on a 12 px grid with its own random offsets, so a copy with a
 * few px of jitter shares a band's key unless one of its coordinates
 * crosses a cell edge, while different shapes rarely share one. Keys only
 * find candidates (a candidate brings all its shapes to the distance test):
 * 8 bands on a 24 px grid found the same replays with 17 times the
 * candidates and four times the stored keys (docs/scoring.md).
 */
export const SHAPE_BANDS = 2
const SHAPE_DIMS = 6
const SHAPE_CELL = 12
const BANDS: { dims: number[]; offsets: number[] }[] = (() => {
  const r = lcg(20261126)
  return Array.from({ length: SHAPE_BANDS }, () => {
    const dims: number[] = []
    while (dims.length < SHAPE_DIMS) {
      const d = Math.floor(r() * 2 * STROKE_POINTS)
      if (!dims.includes(d)) dims.push(d)
    }
    return { dims: dims.sort((a, b) => a - b), offsets: dims.map(() => r() * SHAPE_CELL) }
  })
})()

const MOUSE_TAG = 1
const TOUCH_TAG = 2
const TYPING_TAG = 3

function shapeKeys(org: number, tag: number, shape: StrokeShape, into: Set<number>): void {
  const words = new Array<number>(3 + SHAPE_DIMS)
  words[0] = org
  words[1] = tag
  for (let b = 0; b < SHAPE_BANDS; b++) {
    const { dims, offsets } = BANDS[b]!
    words[2] = b
    for (let i = 0; i < SHAPE_DIMS; i++) words[3 + i] = Math.floor((shape[dims[i]!]! + offsets[i]!) / SHAPE_CELL)
    into.add(hashWords(words))
  }
}

/** typing n-grams: latencies on a 40 ms grid with each band's offset; one n-gram in RHYTHM_SAMPLE is kept per band, chosen by its key (an alignment needs only one shared n-gram to start from) */
export const RHYTHM_BANDS = 2
const RHYTHM_CELL = 40
const RHYTHM_SAMPLE = 8
const RHYTHM_OFFSETS = (() => {
  const r = lcg(1301)
  return Array.from({ length: RHYTHM_BANDS }, () => r() * RHYTHM_CELL)
})()

/** informative: differs from the previous latency by more than 3 ms (a held key's auto-repeat gives equal ones, alike for everyone) */
function informative(lat: readonly number[], i: number): boolean {
  return lat[i]! >= 0 && (i === 0 || lat[i - 1]! < 0 || Math.abs(lat[i]! - lat[i - 1]!) > 3)
}

function rhythmGrams(org: number, lat: readonly number[], sampled: boolean): { key: number; at: number }[] {
  const out: { key: number; at: number }[] = []
  for (let i = 0; i + RHYTHM_GRAM <= lat.length; i++) {
    let ok = true
    let info = 0
    for (let j = i; j < i + RHYTHM_GRAM; j++) {
      if (lat[j]! < 0) {
        ok = false
        break
      }
      if (informative(lat, j)) info++
    }
    if (!ok || info < RHYTHM_GRAM - 2) continue
    for (let b = 0; b < RHYTHM_BANDS; b++) {
      const words = [org, TYPING_TAG, b]
      for (let j = i; j < i + RHYTHM_GRAM; j++) words.push(Math.floor((lat[j]! + RHYTHM_OFFSETS[b]!) / RHYTHM_CELL))
      const key = hashWords(words)
      if (!sampled || key % RHYTHM_SAMPLE === 0) out.push({ key, at: i })
    }
  }
  return out
}

/**
 * The keys a session's material is stored under (`stored`) and the keys to
 * look up for it (`lookup`: the stored ones plus the keys of every shape's
 * three mirrors). Keys include the organization, so two organizations' keys
 * coincide only by hash collision.
 */
export function materialKeys(orgId: string, m: ReplayMaterial): { stored: number[]; lookup: number[] } {
  const org = textWord(orgId)
  const stored = new Set<number>()
  const lookup = new Set<number>()
  for (const [tag, shapes] of [
    [MOUSE_TAG, m.mouse],
    [TOUCH_TAG, m.touch],
  ] as const) {
    for (const shape of shapes) {
      shapeKeys(org, tag, shape, stored)
      for (const mirror of MIRRORS) shapeKeys(org, tag, mirrored(shape, mirror), lookup)
    }
  }
  // n-grams are sampled by their key, so an n-gram two sessions share is sampled in both or in neither:
  // the stored sample is also the lookup
  for (const g of rhythmGrams(org, m.typing, true)) stored.add(g.key)
  for (const k of stored) lookup.add(k)
  return { stored: [...stored], lookup: [...lookup] }
}

// ------------------------------------------------------------ verification

/**
 * Two shapes are the same stroke when their points are this close (RMS, px).
 * Real data (docs/scoring.md): a jittered replay's strokes lie 0.8 px from
 * their originals (99th percentile 2.2); no stroke of a real person lies
 * within 6.2 px of another person's.
 */
export const SHAPE_MATCH_PX = 3.5
/** latencies within this many ms count as the same */
export const RHYTHM_MATCH_MS = 8

/** the rule: a session reuses material when it has this much in common with earlier sessions of its organization */
export const REUSE_RULE = {
  /** distinctive strokes (mouse or touch) each found in some earlier session */
  strokes: 3,
  /** informative latencies matched in one alignment with one earlier session… */
  latencies: 24,
  /** …which are at least this share of the informative latencies of the overlap */
  latencyShare: 0.7,
}

export type Candidate = { id: string; material: ReplayMaterial }

export type ReuseJudgement = {
  /** distinctive strokes of the session found in an earlier session */
  strokesMatched: number
  strokes: number
  /** the best alignment of the session's latencies with one earlier session: matched informative latencies, and of how many */
  latenciesMatched: number
  latenciesCompared: number
  /** the closest earlier stroke to each of the session's strokes is at least this far (px) when none matched; Infinity without candidates */
  nearestMiss: number
  strokesReused: boolean
  typingReused: boolean
  /** the earlier sessions the matches came from */
  sources: string[]
}

/** RMS spread of a shape's x and of its y around the centroid: the same for every mirror */
function spreadOf(shape: StrokeShape): { rx: number; ry: number } {
  let x = 0
  let y = 0
  for (let i = 0; i < STROKE_POINTS; i++) {
    x += shape[2 * i]! * shape[2 * i]!
    y += shape[2 * i + 1]! * shape[2 * i + 1]!
  }
  return { rx: Math.sqrt(x / STROKE_POINTS), ry: Math.sqrt(y / STROKE_POINTS) }
}

/** shapeDistance², or a value ≥ bound² as soon as it is sure to reach it (early abandon) */
function distanceBelow(a: StrokeShape, b: StrokeShape, bound: number): number {
  const limit = bound * bound * STROKE_POINTS
  let best = Number.POSITIVE_INFINITY
  for (const [sx, sy] of MIRRORS) {
    let d = 0
    for (let i = 0; i < STROKE_POINTS && d < limit && d < best; i++) {
      const dx = a[2 * i]! - sx * b[2 * i]!
      const dy = a[2 * i + 1]! - sy * b[2 * i + 1]!
      d += dx * dx + dy * dy
    }
    if (d < best) best = d
  }
  return Math.sqrt(best / STROKE_POINTS)
}

/**
 * Each shape's closest candidate shape, exactly, without comparing every pair: two shapes are at least
 * hypot(Δrx, Δry) apart (their x and y spreads: triangle inequality on each half of the vector, and a
 * mirror keeps both), so the candidates are scanned outward from the shape's x spread, the scan stops
 * where Δrx reaches the best distance so far, and a full distance is computed only past the bound.
 */
function matchStrokes(
  shapes: readonly StrokeShape[],
  candidates: readonly Candidate[],
  pick: (m: ReplayMaterial) => readonly StrokeShape[]
): { matched: number; nearestMiss: number; sources: Set<string> } {
  let matched = 0
  let nearestMiss = Number.POSITIVE_INFINITY
  const sources = new Set<string>()
  const pool = candidates
    .flatMap((c) => pick(c.material).map((shape) => ({ shape, ...spreadOf(shape), id: c.id })))
    .sort((a, b) => a.rx - b.rx)
  for (const shape of shapes) {
    const { rx, ry } = spreadOf(shape)
    let best = Number.POSITIVE_INFINITY
    let from = ''
    // first pool entry with an x spread ≥ rx
    let lo = 0
    let hi = pool.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (pool[mid]!.rx < rx) lo = mid + 1
      else hi = mid
    }
    for (let up = lo, down = lo - 1; up < pool.length || down >= 0; ) {
      const gapUp = up < pool.length ? pool[up]!.rx - rx : Number.POSITIVE_INFINITY
      const gapDown = down >= 0 ? rx - pool[down]!.rx : Number.POSITIVE_INFINITY
      if (Math.min(gapUp, gapDown) >= best) break
      const next = gapUp <= gapDown ? pool[up++]! : pool[down--]!
      if (Math.hypot(next.rx - rx, next.ry - ry) >= best) continue
      const d = distanceBelow(shape, next.shape, best)
      if (d < best) {
        best = d
        from = next.id
      }
    }
    if (best <= SHAPE_MATCH_PX) {
      matched++
      sources.add(from)
    } else nearestMiss = Math.min(nearestMiss, best)
  }
  return { matched, nearestMiss, sources }
}

/** the best alignment of two latency sequences at the offsets their shared n-grams suggest */
function alignRhythm(org: number, a: readonly number[], b: readonly number[]): { matched: number; compared: number } {
  const at = new Map<number, number[]>()
  for (const g of rhythmGrams(org, b, false)) {
    const list = at.get(g.key)
    if (list) list.push(g.at)
    else at.set(g.key, [g.at])
  }
  const offsets = new Set<number>()
  for (const g of rhythmGrams(org, a, false)) for (const j of at.get(g.key) ?? []) offsets.add(j - g.at)
  let best = { matched: 0, compared: 0 }
  for (const off of offsets) {
    let matched = 0
    let compared = 0
    for (let i = Math.max(0, -off); i < a.length && i + off < b.length; i++) {
      if (!informative(a, i)) continue
      compared++
      const v = b[i + off]!
      if (v >= 0 && Math.abs(a[i]! - v) <= RHYTHM_MATCH_MS) matched++
    }
    if (matched > best.matched) best = { matched, compared }
  }
  return best
}

/**
 * Judges a session's material against candidates from earlier sessions of the
 * same organization (the store found them by shared keys): a stroke matches
 * when an earlier shape lies within SHAPE_MATCH_PX (any mirror); the rhythm
 * matches when one alignment with one earlier session agrees on enough
 * informative latencies. Keys only find candidates, distances decide.
 */
export function judgeReuse(orgId: string, m: ReplayMaterial, candidates: readonly Candidate[]): ReuseJudgement {
  const mouse = matchStrokes(m.mouse, candidates, (c) => c.mouse)
  const touch = matchStrokes(m.touch, candidates, (c) => c.touch)
  const org = textWord(orgId)
  let rhythm = { matched: 0, compared: 0, id: '' }
  if (m.typing.length >= RHYTHM_GRAM)
    for (const c of candidates) {
      if (c.material.typing.length < RHYTHM_GRAM) continue
      const r = alignRhythm(org, m.typing, c.material.typing)
      if (r.matched > rhythm.matched) rhythm = { ...r, id: c.id }
    }
  const strokesMatched = mouse.matched + touch.matched
  const typingReused = rhythm.matched >= REUSE_RULE.latencies && rhythm.matched >= REUSE_RULE.latencyShare * rhythm.compared
  const strokesReused = strokesMatched >= REUSE_RULE.strokes
  const sources = new Set([...mouse.sources, ...touch.sources])
  if (typingReused) sources.add(rhythm.id)
  return {
    strokesMatched,
    strokes: m.mouse.length + m.touch.length,
    latenciesMatched: rhythm.matched,
    latenciesCompared: rhythm.compared,
    nearestMiss: Math.min(mouse.nearestMiss, touch.nearestMiss),
    strokesReused,
    typingReused,
    sources: [...sources],
  }
}

/** whether the material holds anything that could be found again (else nothing is stored or looked up) */
export const hasMaterial = (m: ReplayMaterial) => m.mouse.length > 0 || m.touch.length > 0 || m.typing.length >= RHYTHM_GRAM

// ------------------------------------------------------------ serialised

/**
 * Material as bytes for the store: version 1; counts (u16 mouse, u16 touch,
 * u16 latencies); shapes as int16 in ½ px (the jitter it must survive is
 * px, so ½ px loses nothing that matters); latencies as int16 ms.
 */
export function encodeMaterial(m: ReplayMaterial): Uint8Array {
  const shapes = m.mouse.length + m.touch.length
  const buf = new ArrayBuffer(7 + 2 * (shapes * 2 * STROKE_POINTS + m.typing.length))
  const view = new DataView(buf)
  view.setUint8(0, 1)
  view.setUint16(1, m.mouse.length, true)
  view.setUint16(3, m.touch.length, true)
  view.setUint16(5, m.typing.length, true)
  let o = 7
  const clamp16 = (v: number) => Math.max(-32768, Math.min(32767, Math.round(v)))
  for (const shape of [...m.mouse, ...m.touch])
    for (const v of shape) {
      view.setInt16(o, clamp16(v * 2), true)
      o += 2
    }
  for (const v of m.typing) {
    view.setInt16(o, clamp16(v), true)
    o += 2
  }
  return new Uint8Array(buf)
}

export function decodeMaterial(bytes: Uint8Array): ReplayMaterial {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint8(0) !== 1) throw new Error(`replay material: unknown version ${view.getUint8(0)}`)
  const nm = view.getUint16(1, true)
  const nt = view.getUint16(3, true)
  const nl = view.getUint16(5, true)
  let o = 7
  const shape = () => {
    const s = new Float64Array(2 * STROKE_POINTS)
    for (let i = 0; i < s.length; i++, o += 2) s[i] = view.getInt16(o, true) / 2
    return s
  }
  const mouse = Array.from({ length: nm }, shape)
  const touch = Array.from({ length: nt }, shape)
  const typing = Array.from({ length: nl }, (_, i) => view.getInt16(o + 2 * i, true))
  return { mouse, touch, typing }
}

// ------------------------------------------------------------ memory store

/** the store hands the judge at most this many candidate sessions, those sharing the most keys first (SQL store alike) */
export const CANDIDATE_LIMIT = 50

/**
 * Each key counts at most this many earlier sessions: its most recent ones (by start, then id, both
 * descending). A key that hundreds of sessions share (a farm sending the same material again and again)
 * would otherwise make every lookup read all of them, a cost that grows with the organization's traffic;
 * the most recent sharers of such a key are as much copies as the older ones, and a session's rarer keys
 * still count in full.
 */
export const KEY_FANOUT_LIMIT = 32

/** start descending, then id descending: the SQL store's order of a key's sharers */
const newestFirst = (a: { start: number; id: string }, b: { start: number; id: string }) =>
  b.start - a.start || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * The store in memory, for `npm run eval` and tests: the same candidate rule
 * as the SQL store (modules/ingest/replay-store.ts): sessions of the same
 * organization that started no later and share a key (each key its
 * KEY_FANOUT_LIMIT most recent such sessions), the CANDIDATE_LIMIT sharing
 * most, then judgeReuse.
 */
export class MemoryReplayStore {
  private readonly byKey = new Map<number, number[]>()
  private readonly entries: { org: string; id: string; start: number; material: ReplayMaterial }[] = []

  /** judges the session against what is stored, then stores it (as ingest does when it scores) */
  judgeAndAdd(org: string, id: string, start: number, material: ReplayMaterial): ReuseJudgement {
    const keys = materialKeys(org, material)
    const judgement = judgeReuse(org, material, this.candidates(org, id, start, keys.lookup))
    this.add(org, id, start, material, keys.stored)
    return judgement
  }

  add(org: string, id: string, start: number, material: ReplayMaterial, stored = materialKeys(org, material).stored): void {
    if (!hasMaterial(material)) return
    const index = this.entries.length
    this.entries.push({ org, id, start, material })
    for (const k of stored) {
      const list = this.byKey.get(k)
      if (list) list.push(index)
      else this.byKey.set(k, [index])
    }
  }

  candidates(org: string, id: string, start: number, lookup: readonly number[]): Candidate[] {
    const shared = new Map<number, number>()
    for (const k of lookup) {
      const sharers = (this.byKey.get(k) ?? []).filter((i) => {
        const e = this.entries[i]!
        return e.org === org && e.id !== id && e.start <= start
      })
      if (sharers.length > KEY_FANOUT_LIMIT) sharers.sort((a, b) => newestFirst(this.entries[a]!, this.entries[b]!))
      for (const i of sharers.slice(0, KEY_FANOUT_LIMIT)) shared.set(i, (shared.get(i) ?? 0) + 1)
    }
    return [...shared]
      .map(([i, n]) => ({ entry: this.entries[i]!, n }))
      .sort((a, b) => b.n - a.n || (a.entry.id < b.entry.id ? -1 : 1))
      .slice(0, CANDIDATE_LIMIT)
      .map(({ entry }) => ({ id: entry.id, material: entry.material }))
  }
}
