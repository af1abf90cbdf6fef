// The 34-number feature vector of FEATURES.md, computed from a session's
// signals. Runs unchanged on the server and in the browser SDK: no DOM, no
// imports besides the Signal type. docs/scoring.md has the same definitions
// as a table.
//
// Conventions for every feature:
// - "no data" is NO_DATA (−1); every real value is ≥ 0, so the sentinel never
//   collides with a measurement and a tree model can split it off.
// - inputs are sanitised first: events whose t is not a finite number are
//   skipped; t is clamped to ±1e12 ms, positions/deltas/radius to ±1e6 px, so
//   no product or power below can overflow.
// - the final value is clamped to FEATURE_RANGES[i] (NO_DATA passes through);
//   anything non-finite that still slipped through becomes NO_DATA.
import type { Signal } from './signals'

export const FEATURE_VERSION = '1'
export const NO_DATA = -1
/**
 * The vector describes a session's last FEATURE_WINDOW signals: the client
 * computes it over the last FEATURE_WINDOW signals it has sent (this batch
 * included), the server over the last FEATURE_WINDOW it has stored.
 */
export const FEATURE_WINDOW = 5000

export const FEATURE_NAMES = [
  'ptr_moves_log',
  'ptr_straightness',
  'ptr_deviation',
  'ptr_speed_log',
  'ptr_speed_cv',
  'ptr_accel_sd_norm',
  'ptr_jerk_rms_log',
  'ptr_heading_entropy',
  'ptr_peaks_per_stroke',
  'ptr_peak_time_share',
  'ptr_power_law_dev',
  'ptr_tremor_share',
  'click_hold_mean',
  'click_offset_mean',
  'click_dwell_mean',
  'key_downs_log',
  'key_hold_median',
  'key_hold_cv',
  'key_latency_median',
  'key_latency_cv',
  'key_interval_log_sd',
  'key_rollover',
  'text_without_keys',
  'scroll_events_log',
  'scroll_delta_distinct',
  'scroll_gap_cv',
  'touch_radius_pressure_var',
  'swipe_peak_time_share',
  'gap_cv',
  'gap_burst_share',
  'gap_grid_share',
  'move_coalesced_mean',
  'untrusted_share',
  'screen_client_equal_share',
] as const

export type FeatureName = (typeof FEATURE_NAMES)[number]
export const FEATURE_INDEX = Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, i])) as Record<FeatureName, number>

/** [min, max] of each feature after clipping; NO_DATA is allowed besides. */
export const FEATURE_RANGES: readonly (readonly [number, number])[] = [
  [0, 20],
  [0, 1],
  [0, 5],
  [0, 50],
  [0, 10],
  [0, 1e4],
  [0, 200],
  [0, 1],
  [0, 50],
  [0, 1],
  [0, 10],
  [0, 1],
  [0, 5000],
  [0, 1.5],
  [0, 1e4],
  [0, 20],
  [0, 2000],
  [0, 10],
  [0, 2000],
  [0, 10],
  [0, 10],
  [0, 1],
  [0, 0],
  [0, 20],
  [0, 1],
  [0, 100],
  [0, 1e6],
  [0, 1],
  [0, 1000],
  [0, 1],
  [0, 1],
  [0, 1000],
  [0, 1],
  [0, 1],
]

const T_LIMIT = 1e12
const XY_LIMIT = 1e6
/** a gap longer than this between two moves ends a pointer stroke */
const STROKE_PAUSE_MS = 200
const MIN_PATH_PX = 5
const MIN_CHORD_PX = 10
/** a stroke sample closer in time than this to the previous one is dropped (no derivative divides by ~0) */
const MIN_DT_MS = 0.01
/** key and scroll gaps longer than this are pauses, not rhythm */
const PAUSE_MS = 2000
const MAX_OPEN_KEYS = 16
const BURST_GAP_MS = 2
const GRID_MS = 5
const HEADING_BINS = 16
const TREMOR_RATE_HZ = 50
const TREMOR_WINDOW = 32
/** DFT bins 4–7 of a 32-sample window at 50 Hz: 6.25–10.9 Hz */
const TREMOR_BAND = [4, 7]
const TREMOR_MAX_SAMPLES = 2048

/** the samples of one stroke, in time order, each at least MIN_DT_MS after the previous one */
export type Stroke = { t: Float64Array; x: Float64Array; y: Float64Array }

const MM = 1
const MD = 2
const MU = 3
const CLICK = 4
const KD = 5
const KU = 6
const SCROLL = 7
const TS = 8
const TM = 9
const TE = 10

/** the kind as a small integer; 0 for focus, blur, visibility, resize and anything unknown */
export function kindCode(k: string): number {
  switch (k) {
    case 'mm':
      return MM
    case 'md':
      return MD
    case 'mu':
      return MU
    case 'c':
      return CLICK
    case 'kd':
      return KD
    case 'ku':
      return KU
    case 's':
      return SCROLL
    case 'ts':
      return TS
    case 'tm':
      return TM
    case 'te':
      return TE
    default:
      return 0
  }
}

const isMouse = (k: number) => k >= MM && k <= CLICK
const isTouch = (k: number) => k >= TS
/** `mm`, `md`, `mu`: the events that carry where the mouse is */
export const isMousePosition = (k: number) => k >= MM && k <= MU
/** moves, buttons, keys, scrolls, touches; not clicks, which carry their mouseup's timestamp, nor focus/visibility/resize */
export const isInput = (k: number) => k !== 0 && k !== CLICK

function finite(v: unknown, limit: number): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(limit, Math.max(-limit, v)) : undefined
}

const coord = (v: unknown) => finite(v, XY_LIMIT)

/**
 * The signals with a usable t (clamped) and the kind of each as a small
 * integer. Comparing JSON-parsed kind strings in every pass cost more than
 * the arithmetic of the features, so each kind string is read once.
 */
type Decoded = { signals: readonly Signal[]; kinds: Uint8Array }

function decode(signals: readonly Signal[]): Decoded {
  const valid = usable(signals)
  const kinds = new Uint8Array(valid.length)
  for (let i = 0; i < valid.length; i++) kinds[i] = kindCode(valid[i].k)
  return { signals: valid, kinds }
}

/** the signals with a usable t (clamped); the input itself in the usual case that every t is fine */
function usable(signals: readonly Signal[]): readonly Signal[] {
  let fine = true
  for (let i = 0; i < signals.length && fine; i++) fine = typeof signals[i].t === 'number' && Math.abs(signals[i].t) <= T_LIMIT
  if (fine) return signals
  const out: Signal[] = []
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i]
    const t = finite(s.t, T_LIMIT)
    if (t !== undefined) out.push({ ...s, t })
  }
  return out
}

type Values = ArrayLike<number>

function mean(a: Values): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]
  return s / a.length
}

function sd(a: Values, m = mean(a)): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += (a[i] - m) * (a[i] - m)
  return Math.sqrt(s / a.length)
}

/** coefficient of variation; 0 when the mean is 0 (nothing varies) */
function cv(a: Values): number {
  const m = mean(a)
  return m > 0 ? sd(a, m) / m : 0
}

function maxOf(a: Values): number {
  let m = -Infinity
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i]
  return m
}

function median(a: readonly number[]): number {
  const s = Float64Array.from(a).sort()
  const h = s.length >> 1
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2
}

/** statistic `f` of `a` when it has at least `min` values, else NO_DATA */
function stat(a: readonly number[], min: number, f: (a: readonly number[]) => number): number {
  return a.length >= min ? f(a) : NO_DATA
}

const norm = (dx: number, dy: number) => Math.sqrt(dx * dx + dy * dy)
/** distance between samples i and j of a stroke */
const span = (st: Stroke, i: number, j: number) => norm(st.x[j] - st.x[i], st.y[j] - st.y[i])

/** collects samples into strokes laid out in shared buffers */
class StrokeBuilder {
  readonly strokes: Stroke[] = []
  private readonly t: Float64Array
  private readonly x: Float64Array
  private readonly y: Float64Array
  private n = 0
  private start = 0

  constructor(capacity: number) {
    this.t = new Float64Array(capacity)
    this.x = new Float64Array(capacity)
    this.y = new Float64Array(capacity)
  }

  /** time of the open stroke's last sample */
  last(): number | undefined {
    return this.n > this.start ? this.t[this.n - 1] : undefined
  }

  /** a sample closer than MIN_DT_MS after the previous one (or before it) is dropped */
  add(t: number, x: number, y: number): void {
    const last = this.last()
    if (last !== undefined && t - last < MIN_DT_MS) return
    this.t[this.n] = t
    this.x[this.n] = x
    this.y[this.n] = y
    this.n++
  }

  close(): void {
    if (this.n === this.start) return
    this.strokes.push({
      t: this.t.subarray(this.start, this.n),
      x: this.x.subarray(this.start, this.n),
      y: this.y.subarray(this.start, this.n),
    })
    this.start = this.n
  }
}

/**
 * Pointer strokes: runs of `mm` events with a valid position, ended by a
 * gap > STROKE_PAUSE_MS, a time going backwards, or a `md`/`mu`.
 */
export function pointerStrokes(signals: readonly Signal[]): Stroke[] {
  return strokesOf(decode(signals))
}

function strokesOf({ signals, kinds }: Decoded): Stroke[] {
  const strokes = new StrokeBuilder(signals.length)
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] === MD || kinds[i] === MU) strokes.close()
    if (kinds[i] !== MM) continue
    const s = signals[i]
    const x = coord(s.x)
    const y = coord(s.y)
    if (x === undefined || y === undefined) continue
    const last = strokes.last()
    if (last !== undefined && (s.t - last > STROKE_PAUSE_MS || s.t < last)) strokes.close()
    strokes.add(s.t, x, y)
  }
  strokes.close()
  return strokes.strokes
}

/** seg[i] = distance from sample i to sample i + 1 */
function segments(st: Stroke): Float64Array {
  const seg = new Float64Array(st.t.length - 1)
  for (let i = 1; i < st.t.length; i++) seg[i - 1] = span(st, i - 1, i)
  return seg
}

type Series = { v: Float64Array; at: Float64Array }

/** speeds (px/s) of consecutive segments at their mid-times (s) */
function speeds(st: Stroke, seg: Float64Array): Series {
  const v = new Float64Array(seg.length)
  const at = new Float64Array(seg.length)
  for (let i = 0; i < seg.length; i++) {
    v[i] = seg[i] / ((st.t[i + 1] - st.t[i]) / 1000)
    at[i] = (st.t[i + 1] + st.t[i]) / 2000
  }
  return { v, at }
}

function derivative({ v, at }: Series): Series {
  const n = Math.max(0, v.length - 1)
  const d = new Float64Array(n)
  const mid = new Float64Array(n)
  for (let i = 1; i < v.length; i++) {
    d[i - 1] = (v[i] - v[i - 1]) / (at[i] - at[i - 1])
    mid[i - 1] = (at[i] + at[i - 1]) / 2
  }
  return { v: d, at: mid }
}

function smooth3(v: Float64Array): Float64Array {
  const out = new Float64Array(v.length)
  for (let i = 0; i < v.length; i++) {
    const lo = Math.max(0, i - 1)
    const hi = Math.min(v.length - 1, i + 1)
    let s = 0
    for (let j = lo; j <= hi; j++) s += v[j]
    out[i] = s / (hi - lo + 1)
  }
  return out
}

/** local maxima of the smoothed speed reaching 20% of the stroke's peak (submovements) */
function velocityPeaks(s: Float64Array): number {
  const max = maxOf(s)
  const eps = max * 1e-6
  let n = 0
  for (let i = 1; i < s.length - 1; i++) if (s[i] > s[i - 1] + eps && s[i] >= s[i + 1] && s[i] >= 0.2 * max) n++
  return n
}

/** time from stroke start to the first peak of the smoothed speed, as a share of the stroke's duration */
function peakTimeShare(s: Float64Array, at: Float64Array, st: Stroke): number {
  const max = maxOf(s)
  let i = 0
  while (s[i] < max - max * 1e-6) i++
  const t = st.t
  return (at[i] * 1000 - t[0]) / (t[t.length - 1] - t[0])
}

function maxDeviation(st: Stroke, chord: number): number {
  const { x, y } = st
  const n = x.length - 1
  let max = 0
  for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs((x[i] - x[0]) * (y[n] - y[0]) - (y[i] - y[0]) * (x[n] - x[0])) / chord)
  return max / chord
}

/**
 * Turning angles between consecutive segments of ≥ 1 px, atan2(cross, dot),
 * binned so that 0 rad sits in the middle of a bin.
 */
function addHeadingChanges({ x, y }: Stroke, bins: number[]): void {
  let px = 0
  let py = 0
  for (let i = 1; i < x.length; i++) {
    const dx = x[i] - x[i - 1]
    const dy = y[i] - y[i - 1]
    if (norm(dx, dy) < 1) continue
    if (px !== 0 || py !== 0) {
      const turn = Math.atan2(px * dy - py * dx, px * dx + py * dy)
      bins[Math.floor(((turn + Math.PI) / (2 * Math.PI)) * HEADING_BINS + 0.5) % HEADING_BINS]++
    }
    px = dx
    py = dy
  }
}

/** Shannon entropy of the bin counts, normalised to 0…1 */
function entropy(bins: readonly number[]): number {
  const total = bins.reduce((a, b) => a + b, 0)
  let h = 0
  for (const c of bins) if (c > 0) h -= (c / total) * Math.log2(c / total)
  return h / Math.log2(bins.length)
}

/** log curvature vs log speed at interior samples, centred per stroke (two-thirds power law fit) */
function addPowerLawPoints(st: Stroke, seg: Float64Array, acc: { sxy: number; sxx: number; n: number }): void {
  const { t, x, y } = st
  let n = 0
  let sk = 0
  let sv = 0
  let skv = 0
  let skk = 0
  for (let i = 1; i < t.length - 1; i++) {
    const a = seg[i - 1]
    const b = seg[i]
    const c = span(st, i - 1, i + 1)
    if (a < 1e-6 || b < 1e-6 || c < 1e-6) continue
    const curvature = (2 * Math.abs((x[i] - x[i - 1]) * (y[i + 1] - y[i]) - (y[i] - y[i - 1]) * (x[i + 1] - x[i]))) / (a * b * c)
    if (curvature < 1e-6) continue
    const lk = Math.log(curvature)
    const lv = Math.log((a + b) / ((t[i + 1] - t[i - 1]) / 1000))
    n++
    sk += lk
    sv += lv
    skv += lk * lv
    skk += lk * lk
  }
  if (n < 3) return
  acc.sxy += skv - (sk * sv) / n
  acc.sxx += skk - (sk * sk) / n
  acc.n += n
}

const DFT_COS = Array.from({ length: TREMOR_WINDOW / 2 + 1 }, (_, f) =>
  Float64Array.from({ length: TREMOR_WINDOW }, (_, i) => Math.cos((2 * Math.PI * f * i) / TREMOR_WINDOW))
)
const DFT_SIN = Array.from({ length: TREMOR_WINDOW / 2 + 1 }, (_, f) =>
  Float64Array.from({ length: TREMOR_WINDOW }, (_, i) => Math.sin((2 * Math.PI * f * i) / TREMOR_WINDOW))
)

function windowPower(v: Float64Array, f: number): number {
  const cos = DFT_COS[f]
  const sin = DFT_SIN[f]
  let re = 0
  let im = 0
  for (let i = 0; i < TREMOR_WINDOW; i++) {
    re += v[i] * cos[i]
    im += v[i] * sin[i]
  }
  return re * re + im * im
}

/** velocity of a 32-sample window of positions, mean removed, zero-padded */
function windowVelocity(pos: Float64Array, start: number, end: number, out: Float64Array): void {
  const mean = (pos[end - 1] - pos[start - 1]) / (end - start)
  out.fill(0)
  for (let i = start; i < end; i++) out[i - start] = pos[i] - pos[i - 1] - mean
}

/**
 * Spectrum of the stroke's velocity resampled at 50 Hz, in windows of 32
 * samples (1.56 Hz bins, a short last window zero-padded). Velocity rather
 * than position so the large, slow aiming movement does not swamp the
 * 8–12 Hz physiological tremor.
 */
function addTremorPower({ t, x, y }: Stroke, acc: { band: number; total: number; windows: number }): void {
  const step = 1000 / TREMOR_RATE_HZ
  const last = t.length - 1
  const n = Math.min(TREMOR_MAX_SAMPLES, Math.floor((t[last] - t[0]) / step) + 1)
  const xs = new Float64Array(n)
  const ys = new Float64Array(n)
  for (let i = 0, j = 0; i < n; i++) {
    const at = t[0] + i * step
    while (j < last - 1 && t[j + 1] < at) j++
    const u = Math.min(1, Math.max(0, (at - t[j]) / (t[j + 1] - t[j])))
    xs[i] = x[j] + (x[j + 1] - x[j]) * u
    ys[i] = y[j] + (y[j + 1] - y[j]) * u
  }
  const vx = new Float64Array(TREMOR_WINDOW)
  const vy = new Float64Array(TREMOR_WINDOW)
  for (let start = 1; start < n; start += TREMOR_WINDOW) {
    const end = Math.min(n, start + TREMOR_WINDOW)
    if (end - start < 8) break
    windowVelocity(xs, start, end, vx)
    windowVelocity(ys, start, end, vy)
    for (let f = 1; f <= TREMOR_WINDOW / 2; f++) {
      const p = windowPower(vx, f) + windowPower(vy, f)
      acc.total += p
      if (f >= TREMOR_BAND[0] && f <= TREMOR_BAND[1]) acc.band += p
    }
    acc.windows++
  }
}

/** features 0–11 */
function pointerFeatures(session: Decoded, moves: number): number[] {
  const straight: number[] = []
  const deviation: number[] = []
  const speedCv: number[] = []
  const accelNorm: number[] = []
  const peaks: number[] = []
  const peakShare: number[] = []
  const headingBins = new Array<number>(HEADING_BINS).fill(0)
  const powerLaw = { sxy: 0, sxx: 0, n: 0 }
  const tremor = { band: 0, total: 0, windows: 0 }
  let path = 0
  let duration = 0
  let jerkSquares = 0
  let jerks = 0

  for (const st of strokesOf(session)) {
    const n = st.t.length
    addHeadingChanges(st, headingBins)
    if (n < 3) continue
    const seg = segments(st)
    let len = 0
    for (let i = 0; i < seg.length; i++) len += seg[i]
    const chord = span(st, 0, n - 1)
    if (len >= MIN_PATH_PX) straight.push(chord / len)
    if (chord >= MIN_CHORD_PX) deviation.push(maxDeviation(st, chord))

    const sp = speeds(st, seg)
    path += len
    duration += (st.t[n - 1] - st.t[0]) / 1000
    if (sp.v.length >= 3) speedCv.push(cv(sp.v))
    const acc = derivative(sp)
    const meanSpeed = mean(sp.v)
    if (acc.v.length >= 2 && meanSpeed > 0) accelNorm.push(sd(acc.v) / meanSpeed)
    for (const j of derivative(acc).v) {
      jerkSquares += j * j
      jerks++
    }
    if (sp.v.length >= 4) {
      const s = smooth3(sp.v)
      peaks.push(velocityPeaks(s))
      peakShare.push(peakTimeShare(s, sp.at, st))
    }
    addPowerLawPoints(st, seg, powerLaw)
    if (n >= 5 && st.t[n - 1] - st.t[0] >= 200) addTremorPower(st, tremor)
  }

  const headingChanges = headingBins.reduce((a, b) => a + b, 0)
  // Per feature: what it is, unit, when it is NO_DATA. Ranges: FEATURE_RANGES.
  return [
    Math.log1p(moves), // 0 ln(1 + mm count); never NO_DATA
    stat(straight, 1, mean), // 1 chord / path, strokes ≥ 3 samples and ≥ 5 px; none
    stat(deviation, 1, mean), // 2 max perpendicular distance / chord, strokes with chord ≥ 10 px; none
    duration > 0 ? Math.log1p(path / duration) : NO_DATA, // 3 ln(1 + px/s); no stroke with duration
    stat(speedCv, 1, mean), // 4 speed std/mean per stroke (≥ 3 segments); none
    stat(accelNorm, 1, mean), // 5 acceleration std / mean speed, 1/s, per stroke (≥ 2 accelerations); none
    jerks > 0 ? Math.log1p(Math.sqrt(jerkSquares / jerks)) : NO_DATA, // 6 ln(1 + RMS jerk in px/s³); no jerk
    headingChanges >= 5 ? entropy(headingBins) : NO_DATA, // 7 turning-angle entropy 0…1; < 5 angles
    stat(peaks, 1, mean), // 8 speed peaks per stroke (≥ 4 speeds); none
    stat(peakShare, 1, mean), // 9 time to first speed peak / stroke duration; none
    powerLaw.n >= 10 && powerLaw.sxx > 1e-6 ? Math.abs(-powerLaw.sxy / powerLaw.sxx - 1 / 3) : NO_DATA, // 10 |β − 1/3|; < 10 points
    tremor.windows > 0 ? (tremor.total > 0 ? tremor.band / tremor.total : 0) : NO_DATA, // 11 6–11 Hz power share; no stroke ≥ 200 ms
  ]
}

/** features 12–14 */
function clickFeatures({ signals, kinds }: Decoded): number[] {
  const holds: number[] = []
  const offsets: number[] = []
  const dwells: number[] = []
  let lastMove: number | undefined
  let downAt: number | undefined
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[i]
    if (k < MM || k > CLICK) continue
    const s = signals[i]
    const t = s.t
    if (k === MM) lastMove = t
    if (k === MD) {
      if (lastMove !== undefined) dwells.push(Math.max(0, t - lastMove))
      downAt = t
    }
    if (k === MU && downAt !== undefined) {
      holds.push(Math.max(0, t - downAt))
      downAt = undefined
    }
    if (k === CLICK || k === MD) {
      const ox = finite(s.ox, 1)
      const oy = finite(s.oy, 1)
      if (ox !== undefined && oy !== undefined) offsets.push(norm(ox, oy))
    }
  }
  return [
    stat(holds, 1, mean), // 12 md → next mu, ms; no pair
    stat(offsets, 1, mean), // 13 √(ox² + oy²) of c/md, 0…√2; none carry ox/oy
    stat(dwells, 1, mean), // 14 latest mm → md, ms; no md after a move
  ]
}

/**
 * Features 15–22. A key up closes the earliest open key down of the same
 * class (else the earliest open one): key identities are never sent, and
 * first-in-first-out is what rollover typing produces.
 */
function keyFeatures({ signals, kinds }: Decoded): number[] {
  type Down = { t: number; kc: string; up?: number }
  const downs: Down[] = []
  const open: Down[] = []
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] !== KD && kinds[i] !== KU) continue
    const s = signals[i]
    const t = s.t
    if (kinds[i] === KD) {
      const d: Down = { t, kc: s.kc ?? 'other' }
      downs.push(d)
      open.push(d)
      if (open.length > MAX_OPEN_KEYS) open.shift()
    } else if (open.length) {
      const same = open.findIndex((d) => d.kc === (s.kc ?? 'other'))
      const [closed] = open.splice(Math.max(0, same), 1)
      closed.up = t
    }
  }
  const holds: number[] = []
  for (const d of downs) if (d.up !== undefined && d.up - d.t >= 0 && d.up - d.t <= PAUSE_MS) holds.push(d.up - d.t)
  const latencies: number[] = []
  let pairs = 0
  let rolled = 0
  for (let i = 1; i < downs.length; i++) {
    const l = downs[i].t - downs[i - 1].t
    if (l < 0 || l > PAUSE_MS) continue
    latencies.push(l)
    const up = downs[i - 1].up
    if (up === undefined) continue
    pairs++
    if (downs[i].t < up) rolled++
  }
  return [
    Math.log1p(downs.length), // 15 ln(1 + kd count); never NO_DATA
    stat(holds, 1, median), // 16 median hold, ms; no hold
    stat(holds, 3, cv), // 17 hold std/mean; < 3 holds
    stat(latencies, 1, median), // 18 median kd → kd, ms; no latency
    stat(latencies, 3, cv), // 19 latency std/mean; < 3 latencies
    stat(latencies, 3, (l) => sd(l.map((v) => Math.log(Math.max(1, v))))), // 20 std of ln latency; < 3 latencies
    pairs >= 2 ? rolled / pairs : NO_DATA, // 21 share of key pairs rolled over; < 2 pairs
    // 22 not observable in v1: the signal contract has no input/paste event,
    // so text that arrives without key events leaves no trace. Kept at 0 so
    // the vector keeps its shape; a model never gains anything from it.
    0,
  ]
}

/** features 23–27 */
function scrollTouchFeatures({ signals, kinds }: Decoded, scrolls: number): number[] {
  const deltas = new Set<number>()
  let deltaCount = 0
  const gaps: number[] = []
  let lastScroll: number | undefined
  const radius: number[] = []
  const pressure: number[] = []
  const swipes = new StrokeBuilder(signals.length)
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[i]
    if (k !== SCROLL && !isTouch(k)) continue
    const s = signals[i]
    const t = s.t
    if (k === SCROLL) {
      const dy = coord(s.dy)
      if (dy !== undefined) {
        deltas.add(Math.round(dy * 100))
        deltaCount++
      }
      if (lastScroll !== undefined && t - lastScroll >= 0 && t - lastScroll <= PAUSE_MS) gaps.push(t - lastScroll)
      lastScroll = t
      continue
    }
    const r = coord(s.r)
    const p = coord(s.p)
    if (r !== undefined) radius.push(r)
    if (p !== undefined) pressure.push(p)
    if (k === TS) swipes.close()
    const x = coord(s.x)
    const y = coord(s.y)
    if (x !== undefined && y !== undefined) swipes.add(t, x, y)
    if (k === TE) swipes.close()
  }
  swipes.close()
  const swipeShares: number[] = []
  for (const st of swipes.strokes) {
    if (st.t.length < 5) continue
    const sp = speeds(st, segments(st))
    swipeShares.push(peakTimeShare(smooth3(sp.v), sp.at, st))
  }
  const variance = (a: number[]) => (a.length >= 3 ? sd(a) ** 2 : 0)
  return [
    Math.log1p(scrolls), // 23 ln(1 + s count); never NO_DATA
    deltaCount >= 3 ? deltas.size / deltaCount : NO_DATA, // 24 distinct dy / s with dy; < 3
    stat(gaps, 3, cv), // 25 std/mean of s → s gaps ≤ 2 s; < 3 gaps
    radius.length >= 3 || pressure.length >= 3 ? variance(radius) + variance(pressure) : NO_DATA, // 26 var(r) px² + var(p); < 3 values
    stat(swipeShares, 1, mean), // 27 time to first speed peak / swipe duration; no swipe ≥ 5 samples
  ]
}

/**
 * Features 28–33. Gaps are taken between consecutive input events only
 * (moves, buttons, keys, scrolls, touches): a browser fires `c` with its
 * mouseup's timestamp and focus/visibility events in pairs, which would look
 * like scripted bursts.
 */
function timingFeatures({ signals, kinds }: Decoded): number[] {
  const gaps: number[] = []
  let prev: number | undefined
  let moves = 0
  let coalesced = 0
  let untrusted = 0
  let events = 0
  let mouse = 0
  let screenEqual = 0
  let bursts = 0
  let positive = 0
  let onGrid = 0
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[i]
    const s = signals[i]
    const t = s.t
    events++
    if (s.tr === false) untrusted++
    if (isMouse(k)) {
      mouse++
      if (s.sc === 1 || s.sc === true) screenEqual++
    }
    if (k === MM) {
      moves++
      coalesced += finite(s.n, 1000) ?? 1
    }
    if (!isInput(k)) continue
    if (prev !== undefined) {
      const gap = Math.max(0, t - prev)
      gaps.push(gap)
      if (gap < BURST_GAP_MS) bursts++
      if (gap > 0) positive++
      if (gap > 0 && Math.abs(gap / GRID_MS - Math.round(gap / GRID_MS)) * GRID_MS < 0.01) onGrid++
    }
    prev = t
  }
  return [
    stat(gaps, 3, cv), // 28 std/mean of input gaps; < 3 gaps
    gaps.length >= 3 ? bursts / gaps.length : NO_DATA, // 29 share of gaps < 2 ms; < 3 gaps
    positive >= 3 ? onGrid / positive : NO_DATA, // 30 share of gaps on the 5 ms grid; < 3 positive gaps
    moves > 0 ? coalesced / moves : NO_DATA, // 31 mean n per mm (missing = 1); no mm
    events > 0 ? untrusted / events : NO_DATA, // 32 share tr: false; no events
    mouse > 0 ? screenEqual / mouse : NO_DATA, // 33 share sc of mm/md/mu/c; no mouse event
  ]
}

/** feature i clamped into FEATURE_RANGES[i]; NO_DATA stays, non-finite becomes NO_DATA */
export function clampFeature(v: number, i: number): number {
  if (v === NO_DATA || !Number.isFinite(v)) return NO_DATA
  const [lo, hi] = FEATURE_RANGES[i]
  return Math.min(hi, Math.max(lo, v))
}

export function extractFeatures(signals: readonly Signal[]): number[] {
  const session = decode(signals)
  let moves = 0
  let scrolls = 0
  for (const k of session.kinds) {
    if (k === MM) moves++
    if (k === SCROLL) scrolls++
  }
  return [
    ...pointerFeatures(session, moves),
    ...clickFeatures(session),
    ...keyFeatures(session),
    ...scrollTouchFeatures(session, scrolls),
    ...timingFeatures(session),
  ].map(clampFeature)
}

/** the vector of a session's signals as the SDK sends it and the server checks it: over the last FEATURE_WINDOW */
export const windowFeatures = (signals: readonly Signal[]): number[] =>
  extractFeatures(signals.length > FEATURE_WINDOW ? signals.slice(-FEATURE_WINDOW) : signals)
