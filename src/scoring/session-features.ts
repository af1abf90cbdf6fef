// What the server's session model reads from the stored signals, per
// modality. Unlike the 34-number client vector (features.ts, the SDK
// contract), nothing here reads `n`, `ox`/`oy`, `sc` or `tr`, and the pointer
// kinematics are measured on each stroke resampled to a fixed 20 ms grid, so
// that the display rate (60–240 Hz) and the timer resolution (0.1–100 ms)
// change the numbers as little as possible. A modality without enough data is
// null: the scorer then takes no evidence from it (docs/scoring.md).
import { median as med, quantile, selectKth, sortedOf } from './order-statistics'
import { ownInput, type Signal } from './signals'

/** a gap longer than this between two positions ends a stroke */
const STROKE_PAUSE_MS = 300
/**
 * Mouse moves this soon after the stroke's last sample are one delivery with it: merged into it as
 * moves of one timestamp are (its time, the burst's last place). A virtual machine's input and a
 * bot's awaited moves in Firefox arrive in bursts 1–3 ms apart carrying a frame's distance: read as
 * speed, such a burst is a hand's jerk where there is none (docs/scoring.md, m4-2026.11.18). 4 ms
 * keeps every sample of a 240 Hz pointer.
 */
const BURST_MS = 4
/** a stroke counts when it has this many distinct-time samples, path and duration */
const MIN_SAMPLES = 4
const MIN_PATH_PX = 20
const MIN_DURATION_MS = 60
/** a mouse stroke this long (path) that is over in less than MIN_DURATION_MS, from rest to rest, is a flash (SessionFeatures.pointerFlashes) */
const FLASH_PATH_PX = 100
/**
 * SessionFeatures.pointerClocks. A mouse stroke of minGaps gaps or more runs on a clean clock (a display's
 * frame rate, a mouse's polling) when cleanShare of its gaps lie within tolerance of their median, or 1 ms
 * (integer-ms timers alternate 16 and 17 ms at 60 Hz). A stroke's clock is off the session's when one is
 * ratio times the other or more, and not one of the harmonics within harmonic: a frame rate halved or
 * thirded by dropped frames, or a display that switches between 60 and 120 Hz, is the same device. Nor is
 * a clock past the last harmonic's window (3.36 times the other or more): a fast mouse's reports (250–1000
 * Hz) that the browser passes on as they come while it is idle, and groups by frame while it renders, as
 * WebKit does (2 ms reports, 4 ms once BURST_MS merges them, among 16 ms strokes: docs/scoring.md,
 * *Real people through real browsers*).
 */
const CLOCK = { minGaps: 10, cleanShare: 0.75, tolerance: 0.15, ratio: 1.3, harmonics: [2, 3], harmonic: 0.12 } as const
const BEYOND_HARMONICS = CLOCK.harmonics[CLOCK.harmonics.length - 1] * (1 + CLOCK.harmonic)
/** the fixed grid every stroke is resampled on */
const GRID_MS = 20
/** fewer counted strokes than this: no pointer evidence */
export const MIN_STROKES = 1
/**
 * jerk_med and jerk_p10 of a touch session: the median jerk_med of the real
 * mouse users (SapiMouse, 0.48), so the trees read it as neither smooth nor rough.
 */
export const TOUCH_JERK = 0.48
const PAUSE_MS = 2000
const MAX_STROKES = 400
/** a stroke is tested for lying on a line when its chord is this long and it has this many samples (two between its ends) */
const LINE_MIN_CHORD_PX = 50
const LINE_MIN_SAMPLES = 4
/** every sample this close to the chord: on the line (integer positions on an exact line are within 0.71 px) */
const ON_LINE_PX = 1
/** a slow step: a mouse position this long after the one before, inside a stroke, this far from it */
const SLOW_STEP_MS = 80
const SLOW_STEP_PX = 3
/** a reversal at speed: two consecutive mouse steps this long or longer, each at most REVERSAL_GAP_MS, turning more than 90° */
const REVERSAL_STEP_PX = 3
const REVERSAL_GAP_MS = 50
/** steps before pointerStepGapCv is measured */
const STEP_GAP_MIN = 20

export const POINTER_FEATURE_NAMES = [
  'strokes_log',
  'straight_med',
  'straight_p90',
  'straight_share_99',
  'deviation_med',
  'turn_per_px_med',
  'wiggle_med',
  'speed_cv_med',
  'speed_cv_p10',
  'peak_share_med',
  'peak_share_sd',
  'peaks_per_s_med',
  'multi_peak_share',
  'jerk_med',
  'jerk_p10',
  'homing_share_med',
  'speed_log_med',
  'duration_log_med',
  'start_speed_med',
  'end_speed_med',
  'step_repeat_share',
  'dt_cv_med',
  'dt_repeat_share',
  'accel_asym_med',
  'pause_cv',
  'speed_sd_between',
  'curv_speed_corr',
  'step_dt_corr_med',
  'raw_speed_cv_med',
  'corner_speed_med',
  'fast_corner_share',
] as const

export type PointerFeatureName = (typeof POINTER_FEATURE_NAMES)[number]
export const POINTER_INDEX = Object.fromEntries(POINTER_FEATURE_NAMES.map((n, i) => [n, i])) as Record<PointerFeatureName, number>

export type TypingStats = {
  downs: number
  ups: number
  holdMedian: number
  holdCv: number
  latencyMedian: number
  latencyCv: number
  /** (p90 − p50) / (p50 − p10) of the latencies: a hand's pauses make a long right tail, delays drawn evenly between two bounds do not; NaN under TAIL_MIN_LATENCIES */
  latencyTail: number
  rollover: number
  /** share of gaps between consecutive key events under 2 ms */
  burstShare: number
  pressesPerSecond: number
  /** holds measured (a down matched to an up) */
  holds: number
  /** the session's clock resolution (Timing.resolutionMs); NaN when unknown (a client vector) */
  timerMs: number
  /**
   * The keys came from a touch screen's own keyboard: the session's pointer is touch only. Such a
   * keyboard fires keydown and keyup together when a key is let go, so holds, rollover and the gap
   * from a key's down to its up are the keyboard's, not the hand's (burstShare then leaves those gaps out).
   */
  softKeyboard?: boolean
}

export type ScrollStats = { events: number; distinctShare: number; gapCv: number }

/** the clock the session was recorded with, as far as its gaps show */
export type Timing = {
  /** smallest positive gap between consecutive input events, ms (Infinity with none): 0.1–1 on a fine clock, 16.7 or 100 on coarse ones */
  resolutionMs: number
  /** share of gaps under 2 ms between consecutive input events; 0 when the clock is too coarse to tell (resolution ≥ 8 ms) */
  burstShare: number
  gaps: number
}

/** a clock this coarse puts many events on one tick: zero gaps then say nothing about the input */
export const COARSE_TIMER_MS = 8

/**
 * One stroke's statistics (STROKE_FEATURE_NAMES), named as the session features that summarise them
 * (reason codes map the same way). The stroke trees read them stroke by stroke.
 */
export const STROKE_FEATURE_NAMES = [
  'straight_med',
  'deviation_med',
  'turn_per_px_med',
  'wiggle_med',
  'speed_cv_med',
  'peak_share_med',
  'peaks_per_s_med',
  'multi_peak_share',
  'jerk_med',
  'homing_share_med',
  'speed_log_med',
  'duration_log_med',
  'start_speed_med',
  'end_speed_med',
  'dt_cv_med',
  'accel_asym_med',
  'curv_speed_corr',
  'step_dt_corr_med',
  'raw_speed_cv_med',
  'corner_speed_med',
  'fast_corner_share',
  'step_repeat_share',
  'dt_repeat_share',
] as const
/** strokes the stroke trees score in a session, spread evenly over its counted strokes */
export const STROKES_SCORED = 32
/**
 * A pointer sampled this sparsely (median gap between positions), or on a clock this coarse, is a remote
 * desktop's tick or a timer's, not a hand's: its strokes are a few straight pieces, so they are not given
 * to the stroke trees (evidence.ts judges such a pointer by its own rules, POINTER_COARSE_CLOCK_MS).
 */
export const SPARSE_POINTER_MS = 50

export type SessionFeatures = {
  timing: Timing
  /** POINTER_FEATURE_NAMES values; null with fewer than MIN_STROKES strokes (mouse or touch) */
  pointer: number[] | null
  /** counted strokes (mouse and touch) */
  strokes: number
  /** STROKE_FEATURE_NAMES of up to STROKES_SCORED counted strokes, spread evenly over them (empty without pointer features, or on a sparse pointer: SPARSE_POINTER_MS) */
  pointerStrokes: number[][]
  /** most counted strokes are touch strokes (a phone or tablet): the pointer evidence uses the touch intercept */
  pointerTouch: boolean
  /** median gap between a stroke's position samples, ms (NaN without strokes): 4–17 in a browser, about 100 through a remote desktop */
  pointerSampleMs: number
  /** counted strokes with a chord of LINE_MIN_CHORD_PX and LINE_MIN_SAMPLES samples, and those of them whose every sample lies within ON_LINE_PX of the chord */
  pointerLines: { tested: number; onLine: number }
  /**
   * a mouse pointer's straight runs along the screen's axes and diagonals (compassRuns): how many of at
   * least COMPASS_RUN_PX, in how many of the eight directions, and the share of the distance moved that they
   * cover. Mouse Keys moves the cursor only that way; a hand almost never (SapiMouse, DELBOT people: ≤ 0.48).
   */
  pointerCompass: { runs: number; directions: number; share: number }
  /**
   * over a mouse pointer's moves inside strokes (those that moved): the variation of the step lengths over
   * the variation of the gaps (CVs); NaN with fewer than STEP_GAP_MIN steps. A hand sampled on a tick moves
   * a different distance every tick (high); a loop that moves the cursor by one length and sets its speed
   * by how long it sleeps varies the gaps instead (low).
   */
  pointerStepGapCv: number
  /**
   * consecutive mouse steps at speed (each ≥ REVERSAL_STEP_PX, ≤ REVERSAL_GAP_MS apart) inside strokes:
   * pairs tested and those turning more than 90°; triples tested and one-frame backsteps among them (the
   * middle step against both of its neighbours, which go the same way)
   */
  pointerReversals: { pairs: number; reversals: number; triples: number; backsteps: number }
  /**
   * mouse strokes of MIN_SAMPLES samples or more that cover FLASH_PATH_PX or more, and those of them over
   * in less than MIN_DURATION_MS: whole movements, from rest to rest, faster than a hand aims (too short
   * for the trees, which never see them)
   */
  pointerFlashes: { long: number; flashes: number }
  /**
   * mouse strokes on a clean clock (CLOCK.minGaps gaps or more, most of them at their median), those whose
   * clock is off the session's median one (CLOCK.ratio, not a harmonic), and the switches between the two in
   * stroke order: one device keeps its clock; strokes cut from different people's recordings do not
   */
  pointerClocks: { clean: number; off: number; switches: number }
  /** the longest run of consecutive slow steps (SLOW_STEP_MS apart or more, SLOW_STEP_PX or more) inside a mouse stroke */
  pointerSlowRun: number
  /**
   * the longest run of a mouse stroke's steps (of EVEN_STEP_PX or more) that each repeat the one before in
   * length (within EVEN_LENGTH_SHARE or EVEN_LENGTH_PX) and in gap (within EVEN_GAP_SHARE): a loop that moves
   * the cursor a fixed distance per fixed sleep. A hand's step changes with its speed from sample to sample
   */
  pointerEvenRun: number
  keyboard: TypingStats | null
  scroll: ScrollStats | null
  /** touch radius/force readings and their variance; null with fewer than 3 */
  touchContact: { values: number; variance: number } | null
  /** mouse buttons pressed at a position with no pointer or touch movement in the whole session */
  pressesWithoutMovement: number
  /** those presses came at two or more positions: the pointer got from one to the other without a move */
  pressesMovedUnseen: boolean
  /** mouse presses, and those right after a jump onto their spot (jumpedOnto: a script's element click) */
  presses: { all: number; afterJump: number }
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function meanSd(a: ArrayLike<number>, from = 0, to = a.length): [number, number] {
  const n = to - from
  if (n <= 0) return [0, 0]
  let s = 0
  for (let i = from; i < to; i++) s += a[i]
  const m = s / n
  let v = 0
  for (let i = from; i < to; i++) v += (a[i] - m) * (a[i] - m)
  return [m, Math.sqrt(v / n)]
}

const cvOf = (a: ArrayLike<number>, n = a.length) => {
  const [m, s] = meanSd(a, 0, n)
  return m > 0 ? s / m : 0
}

/** a stroke's samples: views into strokesOf's shared buffers, valid until its next call */
type Stroke = { t: Float64Array; x: Float64Array; y: Float64Array; touch: boolean }

// Every stroke of a session in one run of three buffers (a sample is written once, at most one per
// signal): pushing each sample into three new arrays per stroke cost more than the walks that read them.
let sampleT = new Float64Array(4096)
let sampleX = new Float64Array(4096)
let sampleY = new Float64Array(4096)

/**
 * Position samples in strokes. Samples with the same timestamp are merged
 * into the last one (a coarse timer gives many moves one time; the browser
 * would have coalesced them). A stroke ends at a button or touch start/end,
 * at a pause, or when time goes back.
 */
function strokesOf(
  signals: readonly Signal[],
  from = 0
): { strokes: Stroke[]; moves: number; presses: number; jumpPresses: number; pressSpots: number } {
  const strokes: Stroke[] = []
  if (sampleT.length < signals.length - from) {
    const size = Math.max(signals.length - from, 2 * sampleT.length)
    sampleT = new Float64Array(size)
    sampleX = new Float64Array(size)
    sampleY = new Float64Array(size)
  }
  const T = sampleT
  const X = sampleX
  const Y = sampleY
  // the current stroke is [start, end) of the buffers
  let start = 0
  let end = 0
  let curTouch = false
  let moves = 0
  let presses = 0
  let jumpPresses = 0
  // where the first press was, and whether a later one was elsewhere (1 or 2 spots are all the rules ask)
  let pressX = Number.NaN
  let pressY = Number.NaN
  let pressSpots = 0
  // the last two mouse moves, for presses that land right after a jump (JUMP_PRESS_*)
  let lastMove: Move | null = null
  let beforeMove: Move | null = null
  const close = () => {
    if (end > start) strokes.push({ t: T.subarray(start, end), x: X.subarray(start, end), y: Y.subarray(start, end), touch: curTouch })
    start = end
    curTouch = false
  }
  for (let i = from; i < signals.length; i++) {
    const s = signals[i]
    const k = s.k
    const mouseMove = k === 'mm'
    const touch = k === 'ts' || k === 'tm' || k === 'te'
    if (k === 'md') {
      presses++
      if (lastMove && num(s.t) && jumpedOnto(beforeMove, lastMove, s.t)) jumpPresses++
      if (num(s.x) && num(s.y)) {
        if (!pressSpots) {
          pressX = s.x
          pressY = s.y
          pressSpots = 1
        } else if (s.x !== pressX || s.y !== pressY) pressSpots = 2
      }
    }
    if (k === 'md' || k === 'mu' || k === 'ts') close()
    if (!(mouseMove || touch) || !num(s.t) || !num(s.x) || !num(s.y)) {
      continue
    }
    moves++
    if (mouseMove) {
      beforeMove = lastMove
      lastMove = { t: s.t, x: s.x, y: s.y }
    }
    if (end > start && (s.t - T[end - 1] > STROKE_PAUSE_MS || s.t < T[end - 1])) close()
    curTouch = touch
    if (end > start && (T[end - 1] === s.t || (mouseMove && s.t - T[end - 1] < BURST_MS))) {
      X[end - 1] = s.x
      Y[end - 1] = s.y
    } else {
      T[end] = s.t
      X[end] = s.x
      Y[end++] = s.y
    }
    if (k === 'te') close()
  }
  close()
  return { strokes, moves, presses, jumpPresses, pressSpots }
}

/** a press this soon after the move that brought the pointer… */
export const JUMP_PRESS_MS = 20
/** …when that move came this far from the pointer's last position… */
const JUMP_PRESS_PX = 30
/** …after this long with no move: a script's element click (one move onto the target, then the press) */
const JUMP_PRESS_QUIET_MS = 100

/**
 * A press within JUMP_PRESS_MS of a move that arrived JUMP_PRESS_PX or more from the pointer's last
 * position after JUMP_PRESS_QUIET_MS without a move (or as the first move): Playwright's and
 * Puppeteer's element click. A mouse reports every frame while it moves, so a hand brings the pointer
 * onto a target in many small steps and presses after they end.
 */
function jumpedOnto(before: Move | null, last: Move, pressT: number): boolean {
  if (pressT - last.t > JUMP_PRESS_MS || pressT < last.t) return false
  if (!before) return true
  return last.t - before.t >= JUMP_PRESS_QUIET_MS && Math.hypot(last.x - before.x, last.y - before.y) >= JUMP_PRESS_PX
}

/** a mouse move whose time and position are numbers (strokesOf skips the others) */
type Move = { t: number; x: number; y: number }

type StrokeStats = {
  straight: number
  deviation: number
  turnPerPx: number
  wiggle: number
  speedCv: number
  peakShare: number
  peaksPerS: number
  /** local maxima of the smoothed speed (submovements, corrections) */
  peaks: number
  jerk: number
  homing: number
  speedLog: number
  durationLog: number
  startSpeed: number
  endSpeed: number
  dtCv: number
  accelAsym: number
  curvSpeed: number
  /** correlation of step length with the time since the previous sample: a hand's step grows with the gap, a script's fixed step does not */
  stepDtCorr: number
  /** CV of step length / gap over recorded samples */
  rawSpeedCv: number
  /** speed through sharp turns / mean speed: a hand slows down to turn, a path of waypoints does not; NaN without sharp turns */
  cornerSpeed: number
  /** share of steps that turn sharply at no less than the stroke's mean speed */
  fastCorners: number
  steps: number
  repeatedSteps: number
  dts: number
  repeatedDts: number
}

/** a counted stroke's STROKE_FEATURE_NAMES values */
function strokeVector(s: StrokeStats, touch: boolean): number[] {
  return [
    s.straight,
    s.deviation,
    s.turnPerPx,
    s.wiggle,
    s.speedCv,
    s.peakShare,
    s.peaksPerS,
    s.peaks > 1 ? 1 : 0,
    // as the session feature: on touch the screen's filter, not the hand, sets a path's jerk
    touch ? TOUCH_JERK : s.jerk,
    s.homing,
    s.speedLog,
    s.durationLog,
    s.startSpeed,
    s.endSpeed,
    s.dtCv,
    s.accelAsym,
    s.curvSpeed,
    s.stepDtCorr,
    s.rawSpeedCv,
    Number.isFinite(s.cornerSpeed) ? s.cornerSpeed : -1,
    s.fastCorners,
    s.steps > 0 ? s.repeatedSteps / s.steps : 0,
    s.dts > 0 ? s.repeatedDts / s.dts : 0,
  ]
}

/** up to STROKES_SCORED of the counted strokes' vectors, spread evenly over them */
function strokeVectors(stats: readonly StrokeStats[], touch: readonly boolean[], sessionTouch: boolean): number[][] {
  const n = stats.length
  const k = Math.min(n, STROKES_SCORED)
  const out: number[][] = []
  // a session judged as touch reads every stroke's jerk as touch (the session feature does the same)
  for (let j = 0; j < k; j++) {
    const i = Math.floor((j * n) / k)
    out.push(strokeVector(stats[i], sessionTouch || touch[i]))
  }
  return out
}

/** linear resampling of a stroke at GRID_MS; returns the speeds (px/s) between grid points */
function gridSpeeds(st: Stroke, out: Float64Array): number {
  const { t, x, y } = st
  const t0 = t[0]
  const n = Math.min(out.length + 1, Math.floor((t[t.length - 1] - t0) / GRID_MS) + 1)
  let j = 0
  let px = x[0]
  let py = y[0]
  for (let i = 1; i < n; i++) {
    const at = t0 + i * GRID_MS
    while (j < t.length - 2 && t[j + 1] < at) j++
    const u = Math.min(1, Math.max(0, (at - t[j]) / (t[j + 1] - t[j])))
    const qx = x[j] + (x[j + 1] - x[j]) * u
    const qy = y[j] + (y[j + 1] - y[j]) * u
    out[i - 1] = (Math.hypot(qx - px, qy - py) * 1000) / GRID_MS
    px = qx
    py = qy
  }
  return n - 1
}

const speedBuf = new Float64Array(4096)
const smoothBuf = new Float64Array(4096)
let lengthBuf = new Float64Array(4096)

/**
 * The length of each step of a stroke (index i: from sample i − 1 to sample i), computed once for the
 * walks that need it: Math.hypot is a native call, and the same arguments give the same bits, so every
 * walk reads exactly what it computed itself before. The buffer is shared: valid until the next call.
 */
function stepLengths(st: Stroke): Float64Array {
  const { x, y } = st
  const n = x.length
  if (lengthBuf.length < n) lengthBuf = new Float64Array(Math.max(n, 2 * lengthBuf.length))
  const out = lengthBuf
  for (let i = 1; i < n; i++) out[i] = Math.hypot(x[i] - x[i - 1], y[i] - y[i - 1])
  return out
}

/** pointerFlashes: a mouse stroke long enough to count, and whether it was over too soon for a hand; `path` is its length (walkMouseSteps) */
function countFlash(st: Stroke, path: number, into: SessionFeatures['pointerFlashes']): void {
  const n = st.t.length
  if (st.touch || n < MIN_SAMPLES || path < FLASH_PATH_PX) return
  into.long++
  if (st.t[n - 1] - st.t[0] < MIN_DURATION_MS) into.flashes++
}

let clockBuf = new Float64Array(64)

/** the median gap of a mouse stroke that runs on a clean clock, or NaN */
function strokeClock(st: Stroke): number {
  const gaps = st.t.length - 1
  if (st.touch || gaps < CLOCK.minGaps) return Number.NaN
  if (clockBuf.length < gaps) clockBuf = new Float64Array(Math.max(gaps, 2 * clockBuf.length))
  const g = clockBuf.subarray(0, gaps)
  for (let i = 0; i < gaps; i++) g[i] = st.t[i + 1] - st.t[i]
  const median = selectKth(g, gaps, gaps >> 1)
  if (!(median > 0)) return Number.NaN
  const tolerance = Math.max(1, CLOCK.tolerance * median)
  let clean = 0
  for (let i = 0; i < gaps; i++) if (Math.abs(g[i] - median) <= tolerance) clean++
  return clean >= CLOCK.cleanShare * gaps ? median : Number.NaN
}

/** pointerClocks from the clean strokes' clocks in stroke order */
function clockSwitches(clocks: readonly number[]): SessionFeatures['pointerClocks'] {
  if (clocks.length < 3) return { clean: clocks.length, off: 0, switches: 0 }
  const session = sortedOf(clocks)[clocks.length >> 1]
  let off = 0
  let switches = 0
  let previous: boolean | undefined
  for (const c of clocks) {
    const ratio = Math.max(c / session, session / c)
    const isOff =
      ratio >= CLOCK.ratio && ratio <= BEYOND_HARMONICS && !CLOCK.harmonics.some((h) => Math.abs(ratio / h - 1) <= CLOCK.harmonic)
    if (isOff) off++
    if (previous !== undefined && isOff !== previous) switches++
    previous = isOff
  }
  return { clean: clocks.length, off, switches }
}

function strokeStats(st: Stroke, lengths: Float64Array): StrokeStats | undefined {
  const { t, x, y } = st
  const n = t.length
  if (n < MIN_SAMPLES) return undefined
  const duration = t[n - 1] - t[0]
  if (duration < MIN_DURATION_MS) return undefined
  let path = 0
  let turn = 0
  let signChanges = 0
  let lastSign = 0
  let pdx = 0
  let pdy = 0
  // the length of the step (pdx, pdy)
  let pd = 0
  let steps = 0
  let repeated = 0
  let dts = 0
  let repeatedDts = 0
  let dtSum = 0
  let dtSq = 0
  let ln = 0
  let sl = 0
  let sll = 0
  let sd = 0
  let sdd = 0
  let sld = 0
  let rv = 0
  let rvv = 0
  let cornerSum = 0
  let corners = 0
  const cornerSpeeds: number[] = []
  let curvN = 0
  let sc = 0
  let ss = 0
  let scc = 0
  let sss = 0
  let scs = 0
  for (let i = 1; i < n; i++) {
    const dx = x[i] - x[i - 1]
    const dy = y[i] - y[i - 1]
    const d = lengths[i]
    path += d
    const dt = t[i] - t[i - 1]
    dtSum += dt
    dtSq += dt * dt
    if (i >= 2) {
      dts++
      if (Math.abs(dt - (t[i - 1] - t[i - 2])) < 1e-6) repeatedDts++
    }
    if (d >= 1 && dt > 0) {
      ln++
      sl += d
      sll += d * d
      sd += dt
      sdd += dt * dt
      sld += d * dt
      rv += d / dt
      rvv += (d / dt) * (d / dt)
    }
    if (d >= 2) {
      steps++
      if (dx === pdx && dy === pdy) repeated++
    }
    if (d >= 1) {
      if (pdx !== 0 || pdy !== 0) {
        const a = Math.atan2(pdx * dy - pdy * dx, pdx * dx + pdy * dy)
        turn += Math.abs(a)
        const sign = a > 0.02 ? 1 : a < -0.02 ? -1 : 0
        if (sign !== 0) {
          if (lastSign !== 0 && sign !== lastSign) signChanges++
          lastSign = sign
        }
        if (pd >= 3 && d >= 3 && dt > 0 && Math.abs(a) > 0.9) {
          cornerSpeeds.push(d / dt)
          corners++
          cornerSum += d / dt
        }
        if (pd >= 1 && dt > 0) {
          // log curvature vs log speed: the two-thirds power law of human movement
          const c = Math.log(Math.abs(a) / ((pd + d) / 2) + 1e-4)
          const v = Math.log(d / dt + 1e-3)
          curvN++
          sc += c
          ss += v
          scc += c * c
          sss += v * v
          scs += c * v
        }
      }
      pdx = dx
      pdy = dy
      pd = d
    }
  }
  if (path < MIN_PATH_PX) return undefined
  const chord = Math.hypot(x[n - 1] - x[0], y[n - 1] - y[0])
  let dev = 0
  if (chord >= 10) {
    for (let i = 0; i < n; i++) dev = Math.max(dev, Math.abs((x[i] - x[0]) * (y[n - 1] - y[0]) - (y[i] - y[0]) * (x[n - 1] - x[0])) / chord)
    dev /= chord
  }
  // time spent in the last 20% of the path: humans home in on a target slowly
  let acc = 0
  let homingStart = t[n - 1]
  for (let i = 1; i < n; i++) {
    acc += lengths[i]
    if (acc >= 0.8 * path) {
      homingStart = t[i - 1]
      break
    }
  }
  const m = gridSpeeds(st, speedBuf)
  let speedCv = 0
  let peakShare = 0.5
  let peaks = 0
  let jerk = 0
  let startSpeed = 0
  let endSpeed = 0
  let accelAsym = 0
  if (m >= 3) {
    for (let i = 0; i < m; i++) smoothBuf[i] = (speedBuf[Math.max(0, i - 1)] + speedBuf[i] + speedBuf[Math.min(m - 1, i + 1)]) / 3
    const [mean, sd] = meanSd(speedBuf, 0, m)
    speedCv = mean > 0 ? sd / mean : 0
    let max = 0
    let at = 0
    for (let i = 0; i < m; i++) if (smoothBuf[i] > max) [max, at] = [smoothBuf[i], i]
    peakShare = (at + 0.5) / m
    for (let i = 1; i < m - 1; i++)
      if (smoothBuf[i] > smoothBuf[i - 1] && smoothBuf[i] >= smoothBuf[i + 1] && smoothBuf[i] >= 0.2 * max) peaks++
    if (m >= 4 && mean > 0) {
      let j2 = 0
      for (let i = 2; i < m; i++) {
        const j = speedBuf[i] - 2 * speedBuf[i - 1] + speedBuf[i - 2]
        j2 += j * j
      }
      jerk = Math.log1p(Math.sqrt(j2 / (m - 2)) / mean)
    }
    startSpeed = max > 0 ? speedBuf[0] / max : 0
    endSpeed = max > 0 ? speedBuf[m - 1] / max : 0
    // mean acceleration before the peak vs mean deceleration after it
    const up = at > 0 ? (smoothBuf[at] - smoothBuf[0]) / at : 0
    const down = at < m - 1 ? (smoothBuf[at] - smoothBuf[m - 1]) / (m - 1 - at) : 0
    accelAsym = up + down > 0 ? up / (up + down) : 0.5
  }
  const dtMean = dtSum / (n - 1)
  const dtSd = Math.sqrt(Math.max(0, dtSq / (n - 1) - dtMean * dtMean))
  let curvSpeed = 0
  if (curvN >= 5) {
    const vc = scc / curvN - (sc / curvN) ** 2
    const vs = sss / curvN - (ss / curvN) ** 2
    if (vc > 1e-9 && vs > 1e-9) curvSpeed = (scs / curvN - (sc / curvN) * (ss / curvN)) / Math.sqrt(vc * vs)
  }
  let stepDtCorr = 0
  let rawSpeedCv = 0
  if (ln >= 3) {
    const ml = sl / ln
    const vl = sll / ln - ml * ml
    const md = sd / ln
    const vd = sdd / ln - md * md
    // no variation in the gaps (a steady display rate): nothing to correlate, report the neutral 0
    stepDtCorr = vl > 1e-9 && vd > 1e-9 && Math.sqrt(vd) / md > 0.05 ? (sld / ln - ml * md) / Math.sqrt(vl * vd) : 0
    const mv = rv / ln
    rawSpeedCv = mv > 0 ? Math.sqrt(Math.max(0, rvv / ln - mv * mv)) / mv : 0
  }
  const meanRawSpeed = ln ? rv / ln : 0
  let fast = 0
  for (const v of cornerSpeeds) if (v >= meanRawSpeed) fast++
  return {
    cornerSpeed: corners && meanRawSpeed > 0 ? cornerSum / corners / meanRawSpeed : Number.NaN,
    fastCorners: ln ? fast / ln : 0,
    stepDtCorr,
    rawSpeedCv,
    straight: path > 0 ? chord / path : 1,
    deviation: dev,
    turnPerPx: Math.log1p((turn / path) * 100),
    wiggle: (signChanges / path) * 100,
    speedCv,
    peakShare,
    peaksPerS: peaks / (duration / 1000),
    peaks,
    jerk,
    homing: (t[n - 1] - homingStart) / duration,
    speedLog: Math.log1p(path / (duration / 1000)),
    durationLog: Math.log(duration),
    startSpeed,
    endSpeed,
    dtCv: dtMean > 0 ? dtSd / dtMean : 0,
    accelAsym,
    curvSpeed,
    steps,
    repeatedSteps: repeated,
    dts,
    repeatedDts,
  }
}

type MouseSteps = {
  /** the distance moved, px (the share pointerCompass reports is of it) */
  moved: number
  /** the longest run of slow steps (pointerSlowRun) */
  slowRun: number
  /** the longest run of even steps (pointerEvenRun) */
  evenRun: number
  /** how many of the steps that moved have their length and gap in stepLengthSample and stepGapSample (pointerStepGapCv) */
  samples: number
  reversals: SessionFeatures['pointerReversals']
}
const STEP_SAMPLES_MAX = 4000
// The sampled steps' lengths and gaps, shared as lengthBuf is (valid until the next session): pushing
// thousands of numbers into growing arrays cost more than the walks that read them (bench/scoring.ts).
const stepLengthSample = new Float64Array(STEP_SAMPLES_MAX)
const stepGapSample = new Float64Array(STEP_SAMPLES_MAX)
/** the counted strokes' gaps, whose median is the pointer's sampling interval: at most this many, shared the same way */
const STROKE_GAP_SAMPLES = 4000
const strokeGapSample = new Float64Array(STROKE_GAP_SAMPLES)
/** an even step moves at least this, px; shorter ones are skipped (whole-pixel rounding makes them unequal) */
const EVEN_STEP_PX = 2
/** an even step's length is within this share of the previous one's, or within EVEN_LENGTH_PX (a pixel of rounding each end) */
const EVEN_LENGTH_SHARE = 0.05
const EVEN_LENGTH_PX = 1.5
/** an even step's gap is within this share of the previous one's */
const EVEN_GAP_SHARE = 0.05

/**
 * One walk over a mouse stroke's steps (step i runs from sample i − 1 to sample i), adding to `acc`:
 * - slow steps: SLOW_STEP_MS or more after the one before (the stroke goes on: under STROKE_PAUSE_MS),
 *   SLOW_STEP_PX or more away; the first step after the stroke's start is not counted. A mouse reports
 *   as soon as it has moved one count, every 1–8 ms, and the browser passes a move on every frame; a hand
 *   moving that slowly arrives a pixel at a time. Jumps of several pixels a tenth of a second apart, again
 *   and again, are a loop that moves the cursor and sleeps (DELBOT's pynput bots), or a page rendering a
 *   few frames a second.
 * - the distance moved (the session's, and the stroke's, which it returns), and the length and gap of every step that moved;
 * - even steps: the longest run of steps of EVEN_STEP_PX or more that each repeat the previous such step's
 *   length and gap (pointerEvenRun);
 * - reversals at speed: pairs of fast steps (≥ REVERSAL_STEP_PX, ≤ REVERSAL_GAP_MS) turning by more than
 *   90°, and one-frame backsteps (the middle of three fast steps against both neighbours, which agree).
 */
function walkMouseSteps(st: Stroke, lengths: Float64Array, acc: MouseSteps): number {
  if (st.touch) return 0
  // the stroke's own path (countFlash reads it), summed beside the session's in the same order
  let path = 0
  const { t, x, y } = st
  const n = t.length
  const dx = new Float64Array(n)
  const dy = new Float64Array(n)
  const fast = new Uint8Array(n)
  let run = 0
  let even = 0
  let evenLength = Number.NaN
  let evenGap = Number.NaN
  for (let i = 1; i < n; i++) {
    dx[i] = x[i] - x[i - 1]
    dy[i] = y[i] - y[i - 1]
    const gap = t[i] - t[i - 1]
    const length = lengths[i]
    acc.moved += length
    path += length
    if (length >= EVEN_STEP_PX) {
      const same =
        Math.abs(length - evenLength) <= Math.max(EVEN_LENGTH_PX, EVEN_LENGTH_SHARE * Math.max(length, evenLength)) &&
        Math.abs(gap - evenGap) <= EVEN_GAP_SHARE * Math.max(gap, evenGap)
      even = same ? even + 1 : 0
      if (even > acc.evenRun) acc.evenRun = even
      evenLength = length
      evenGap = gap
    }
    if (length > 0 && acc.samples < STEP_SAMPLES_MAX) {
      stepLengthSample[acc.samples] = length
      stepGapSample[acc.samples++] = gap
    }
    if (i >= 2 && gap >= SLOW_STEP_MS && length >= SLOW_STEP_PX) {
      run++
      if (run > acc.slowRun) acc.slowRun = run
    } else run = 0
    fast[i] = gap <= REVERSAL_GAP_MS && length >= REVERSAL_STEP_PX ? 1 : 0
  }
  const against = (i: number, j: number) => dx[i] * dx[j] + dy[i] * dy[j] < 0
  const r = acc.reversals
  for (let i = 2; i < n; i++) {
    if (!fast[i - 1] || !fast[i]) continue
    r.pairs++
    if (against(i - 1, i)) r.reversals++
    if (i + 1 < n && fast[i + 1]) {
      r.triples++
      if (against(i - 1, i) && against(i, i + 1) && !against(i - 1, i + 1)) r.backsteps++
    }
  }
  return path
}

/** a compass run is at least this long, px, and strays at most COMPASS_TOLERANCE_PX from its line (a pixel of rounding at a fractional devicePixelRatio) */
const COMPASS_RUN_PX = 40
const COMPASS_TOLERANCE_PX = 1.05
/** a run's direction is read from its first displacement of at least this, px, looked for over at most COMPASS_LOOK samples (a pointer resting in place is skipped, so the walk stays linear) */
const COMPASS_START_PX = 2
const COMPASS_LOOK = 64
/** tan 22.5°: a displacement within this of an axis (as a ratio of its other component) points along it */
const TAN_22_5 = Math.SQRT2 - 1

/**
 * Adds a mouse stroke's straight runs along one of the eight compass directions to `acc` (every sample
 * within COMPASS_TOLERANCE_PX of the line, never going back along it; at least COMPASS_RUN_PX): their
 * length and their directions (bits). The distance the stroke moved is summed by walkMouseSteps. Mouse Keys steps the cursor along the
 * direction of the key held, so its whole path is such runs; a hand's path drifts off any one line.
 * Plain arithmetic (no Math.hypot, no atan2): it runs over every sample of every session scored.
 */
function compassRuns(st: Stroke, acc: { aligned: number; runs: number; directions: number }): void {
  if (st.touch) return
  const { x, y } = st
  const n = x.length
  const start2 = COMPASS_START_PX * COMPASS_START_PX
  let i = 0
  while (i < n - 1) {
    const x0 = x[i]
    const y0 = y[i]
    let j = i + 1
    const look = Math.min(n, i + COMPASS_LOOK)
    while (j < look && (x[j] - x0) ** 2 + (y[j] - y0) ** 2 < start2) j++
    if (j >= n) break
    if (j >= look) {
      i = j
      continue
    }
    // the nearest of the eight directions, as a unit vector (ux, uy) and a bit
    const dx = x[j] - x0
    const dy = y[j] - y0
    const ax = Math.abs(dx)
    const ay = Math.abs(dy)
    let ux = 0
    let uy = 0
    if (ay <= ax * TAN_22_5) ux = Math.sign(dx)
    else if (ax <= ay * TAN_22_5) uy = Math.sign(dy)
    else {
      ux = Math.sign(dx) * Math.SQRT1_2
      uy = Math.sign(dy) * Math.SQRT1_2
    }
    const bit = 1 << ((ux > 0 ? 0 : ux < 0 ? 2 : 1) * 3 + (uy > 0 ? 0 : uy < 0 ? 2 : 1))
    if (Math.abs(dx * uy - dy * ux) > COMPASS_TOLERANCE_PX) {
      i++
      continue
    }
    let k = j
    let prev = dx * ux + dy * uy
    let far = prev
    while (k + 1 < n) {
      const ex = x[k + 1] - x0
      const ey = y[k + 1] - y0
      const along = ex * ux + ey * uy
      if (Math.abs(ex * uy - ey * ux) > COMPASS_TOLERANCE_PX || along < prev - COMPASS_TOLERANCE_PX) break
      k++
      prev = along
      if (along > far) far = along
    }
    if (far >= COMPASS_RUN_PX) {
      acc.aligned += far
      acc.runs++
      acc.directions |= bit
    }
    i = k
  }
}

/** whether every sample of a stroke lies within ON_LINE_PX of the line from its first sample to its last; undefined when too short to tell */
function onLine(st: Stroke): boolean | undefined {
  const { x, y } = st
  const n = x.length
  const dx = x[n - 1] - x[0]
  const dy = y[n - 1] - y[0]
  const chord = Math.hypot(dx, dy)
  if (n < LINE_MIN_SAMPLES || chord < LINE_MIN_CHORD_PX) return undefined
  for (let i = 1; i < n - 1; i++) if (Math.abs((x[i] - x[0]) * dy - (y[i] - y[0]) * dx) / chord > ON_LINE_PX) return false
  return true
}

function pointerFeatures(
  signals: readonly Signal[],
  from = 0
): {
  features: number[] | null
  strokes: number
  strokeVectors: number[][]
  touch: boolean
  moves: number
  presses: number
  jumpPresses: number
  pressSpots: number
  sampleMs: number
  lines: SessionFeatures['pointerLines']
  compass: SessionFeatures['pointerCompass']
  slowRun: number
  evenRun: number
  stepGapCv: number
  reversals: SessionFeatures['pointerReversals']
  flashes: SessionFeatures['pointerFlashes']
  clocks: SessionFeatures['pointerClocks']
} {
  const { strokes, moves, presses, jumpPresses, pressSpots } = strokesOf(signals, from)
  const stats: StrokeStats[] = []
  const strokeTouch: boolean[] = []
  const lines = { tested: 0, onLine: 0 }
  const flashes = { long: 0, flashes: 0 }
  const clocks: number[] = []
  const runs = { aligned: 0, runs: 0, directions: 0 }
  const starts: number[] = []
  const ends: number[] = []
  let gaps = 0
  const mouse: MouseSteps = {
    moved: 0,
    slowRun: 0,
    evenRun: 0,
    samples: 0,
    reversals: { pairs: 0, reversals: 0, triples: 0, backsteps: 0 },
  }
  for (const st of strokes) {
    const lengths = stepLengths(st)
    const path = walkMouseSteps(st, lengths, mouse)
    compassRuns(st, runs)
    countFlash(st, path, flashes)
    const clock = strokeClock(st)
    if (!Number.isNaN(clock)) clocks.push(clock)
    const s = strokeStats(st, lengths)
    if (!s) continue
    stats.push(s)
    strokeTouch.push(st.touch)
    starts.push(st.t[0])
    ends.push(st.t[st.t.length - 1])
    for (let i = 1; i < st.t.length && gaps < STROKE_GAP_SAMPLES; i++) strokeGapSample[gaps++] = st.t[i] - st.t[i - 1]
    const line = onLine(st)
    if (line !== undefined) {
      lines.tested++
      if (line) lines.onLine++
    }
    if (stats.length >= MAX_STROKES) break
  }
  const touch = strokeTouch.filter(Boolean).length * 2 > stats.length
  const sampleMs = gaps ? med(strokeGapSample, gaps) : Number.NaN
  const gapCv = mouse.samples >= STEP_GAP_MIN ? cvOf(stepGapSample, mouse.samples) : 0
  const stepGapCv = gapCv > 0 ? cvOf(stepLengthSample, mouse.samples) / gapCv : Number.NaN
  const { slowRun: slow, evenRun, reversals } = mouse
  let directions = 0
  for (let b = runs.directions; b; b &= b - 1) directions++
  const compass = { runs: runs.runs, directions, share: mouse.moved > 0 ? runs.aligned / mouse.moved : 0 }
  const measured = {
    strokes: stats.length,
    touch,
    moves,
    presses,
    jumpPresses,
    pressSpots,
    sampleMs,
    lines,
    compass,
    slowRun: slow,
    evenRun,
    stepGapCv,
    reversals,
    flashes,
    clocks: clockSwitches(clocks),
  }
  if (stats.length < MIN_STROKES) return { features: null, strokeVectors: [], ...measured }
  const col = (f: (s: StrokeStats) => number) => sortedOf(stats.map(f))
  const straight = col((s) => s.straight)
  const speedCv = col((s) => s.speedCv)
  const peakShare = stats.map((s) => s.peakShare)
  const jerk = col((s) => s.jerk)
  const speeds = stats.map((s) => s.speedLog)
  let steps = 0
  let repeated = 0
  let dts = 0
  let repeatedDts = 0
  for (const s of stats) {
    steps += s.steps
    repeated += s.repeatedSteps
    dts += s.dts
    repeatedDts += s.repeatedDts
  }
  const pauses: number[] = []
  for (let i = 1; i < starts.length; i++) {
    const p = starts[i] - ends[i - 1]
    if (p > 0 && p <= 10 * PAUSE_MS) pauses.push(p)
  }
  const features = [
    Math.log1p(stats.length),
    quantile(straight, 0.5),
    quantile(straight, 0.9),
    stats.filter((s) => s.straight >= 0.99).length / stats.length,
    med(stats.map((s) => s.deviation)),
    med(stats.map((s) => s.turnPerPx)),
    med(stats.map((s) => s.wiggle)),
    quantile(speedCv, 0.5),
    quantile(speedCv, 0.1),
    med(peakShare),
    meanSd(peakShare)[1],
    med(stats.map((s) => s.peaksPerS)),
    stats.filter((s) => s.peaks > 1).length / stats.length,
    // Touch screens filter and resample the finger's path (the OS smooths and predicts touches), so
    // on touch a path's jerk is the device's filter, not the hand: not measured, a typical mouse value instead.
    touch ? TOUCH_JERK : quantile(jerk, 0.5),
    touch ? TOUCH_JERK : quantile(jerk, 0.1),
    med(stats.map((s) => s.homing)),
    med(speeds),
    med(stats.map((s) => s.durationLog)),
    med(stats.map((s) => s.startSpeed)),
    med(stats.map((s) => s.endSpeed)),
    steps > 0 ? repeated / steps : 0,
    med(stats.map((s) => s.dtCv)),
    dts > 0 ? repeatedDts / dts : 0,
    // no share of moves without displacement: touchpads send them by the dozen (a device trait, not a bot's)
    med(stats.map((s) => s.accelAsym)),
    pauses.length >= 3 ? cvOf(pauses) : 0,
    meanSd(speeds)[1],
    med(stats.map((s) => s.curvSpeed)),
    med(stats.map((s) => s.stepDtCorr)),
    med(stats.map((s) => s.rawSpeedCv)),
    (() => {
      const c = stats.map((s) => s.cornerSpeed).filter((v) => Number.isFinite(v))
      // no sharp turn at all: −1, apart from every measured ratio (≥ 0)
      return c.length ? med(c) : -1
    })(),
    med(stats.map((s) => s.fastCorners)),
  ]
  return { features, strokeVectors: strokeVectors(stats, strokeTouch, touch), ...measured }
}

/** latencies before the spread of their tails says anything */
export const TAIL_MIN_LATENCIES = 20
/** a keydown of the class just pressed, with no key event between, this long after it: the OS's auto-repeat of a held key (its delay is 250 ms or more on common settings) */
const REPEAT_DELAY_MS = 200

function tailRatio(latencies: readonly number[]): number {
  if (latencies.length < TAIL_MIN_LATENCIES) return Number.NaN
  const sorted = Float64Array.from(latencies).sort()
  const p50 = quantile(sorted, 0.5)
  const left = p50 - quantile(sorted, 0.1)
  return left > 0 ? (quantile(sorted, 0.9) - p50) / left : Number.NaN
}

/** the figures of the 136M Keystrokes table (ml/data/real/README.md), per session */
function typingStats(signals: readonly Signal[], from = 0, softKeyboard = false): TypingStats | null {
  type Down = { t: number; kc: string; up?: number }
  const downs: Down[] = []
  const open: Down[] = []
  let ups = 0
  let events = 0
  let bursts = 0
  let prev: number | undefined
  let last: { kd: boolean; kc: string; t: number; repeat: boolean } | undefined
  for (let i = from; i < signals.length; i++) {
    const s = signals[i]
    if ((s.k !== 'kd' && s.k !== 'ku') || !num(s.t)) continue
    const kc = s.kc ?? 'other'
    // A held key (an arrow to scroll, Backspace to clear a field): the OS repeats its keydown after a
    // delay and then every 30–80 ms, with no key event between. Those are not presses; counted, a
    // reader holding ↓ for three seconds typed 75 "keys" 33 ms apart and was a bot by typing_too_fast.
    // a soft keyboard's keyup right after its keydown is one event split in two, not a burst
    let pair = false
    if (s.k === 'kd') {
      const repeat = last?.kd === true && last.kc === kc && (last.repeat || s.t - last.t >= REPEAT_DELAY_MS)
      last = { kd: true, kc, t: s.t, repeat }
      if (repeat) continue
    } else {
      pair = softKeyboard && last?.kd === true && last.kc === kc
      last = { kd: false, kc, t: s.t, repeat: false }
    }
    if (prev !== undefined && !pair) {
      events++
      if (s.t - prev < 2) bursts++
    }
    prev = s.t
    if (s.k === 'kd') {
      const d: Down = { t: s.t, kc }
      downs.push(d)
      open.push(d)
      if (open.length > 16) open.shift()
    } else {
      ups++
      if (!open.length) continue
      const same = open.findIndex((d) => d.kc === kc)
      const [closed] = open.splice(Math.max(0, same), 1)
      closed.up = s.t
    }
  }
  if (downs.length < 2) return null
  const holds: number[] = []
  for (const d of downs) if (d.up !== undefined && d.up >= d.t && d.up - d.t <= PAUSE_MS) holds.push(d.up - d.t)
  const latencies: number[] = []
  let pairs = 0
  let rolled = 0
  let active = 0
  for (let i = 1; i < downs.length; i++) {
    const l = downs[i].t - downs[i - 1].t
    if (l < 0 || l > PAUSE_MS) continue
    latencies.push(l)
    active += l
    const up = downs[i - 1].up
    if (up === undefined) continue
    pairs++
    if (downs[i].t < up) rolled++
  }
  return {
    downs: downs.length,
    ups,
    holds: holds.length,
    holdMedian: holds.length ? med(holds) : Number.NaN,
    holdCv: holds.length >= 3 ? cvOf(holds) : Number.NaN,
    latencyMedian: latencies.length ? med(latencies) : Number.NaN,
    latencyCv: latencies.length >= 3 ? cvOf(latencies) : Number.NaN,
    latencyTail: tailRatio(latencies),
    rollover: pairs >= 2 ? rolled / pairs : Number.NaN,
    burstShare: events ? bursts / events : 0,
    softKeyboard,
    // presses in typing bursts per second of typing (pauses > 2 s left out)
    pressesPerSecond: active > 0 ? latencies.length / (active / 1000) : Number.NaN,
    timerMs: Number.NaN,
  }
}

function scrollStats(signals: readonly Signal[], from = 0): ScrollStats | null {
  const deltas = new Set<number>()
  let withDelta = 0
  const gaps: number[] = []
  let last: number | undefined
  let events = 0
  for (let i = from; i < signals.length; i++) {
    const s = signals[i]
    if (s.k !== 's' || !num(s.t)) continue
    events++
    if (num(s.dy)) {
      deltas.add(Math.round(s.dy * 10))
      withDelta++
    }
    if (last !== undefined && s.t - last >= 0 && s.t - last <= PAUSE_MS) gaps.push(s.t - last)
    last = s.t
  }
  if (events < 3) return null
  return { events, distinctShare: withDelta ? deltas.size / withDelta : 1, gapCv: gaps.length >= 3 ? cvOf(gaps) : Number.NaN }
}

function touchContact(signals: readonly Signal[], from = 0): SessionFeatures['touchContact'] {
  const r: number[] = []
  const p: number[] = []
  for (let i = from; i < signals.length; i++) {
    const s = signals[i]
    if (s.k !== 'ts' && s.k !== 'tm' && s.k !== 'te') continue
    if (num(s.r)) r.push(s.r)
    if (num(s.p)) p.push(s.p)
  }
  if (r.length < 3 && p.length < 3) return null
  const v = (a: number[]) => (a.length >= 3 ? meanSd(a)[1] ** 2 : 0)
  return { values: Math.max(r.length, p.length), variance: v(r) + v(p) }
}

/** positive gaps timing() keeps for its clock check, and the buffer they are kept in (shared, as lengthBuf is) */
const TIMING_SAMPLES = 4000
const positiveGaps = new Float64Array(TIMING_SAMPLES)

/** gaps between consecutive input events (moves, buttons, keys, scrolls, touches; not clicks or focus, which come in pairs) */
function timing(signals: readonly Signal[], from = 0, softKeyboard = false): Timing {
  let prev: number | undefined
  let prevKind: string | undefined
  let gaps = 0
  let bursts = 0
  let smallest = Number.POSITIVE_INFINITY
  let positives = 0
  for (let i = from; i < signals.length; i++) {
    const s = signals[i]
    const k = s.k
    if (k === 'c' || k === 'f' || k === 'b' || k === 'v' || k === 'r' || !num(s.t)) continue
    const pair = softKeyboard && k === 'ku' && prevKind === 'kd'
    prevKind = k
    if (prev !== undefined && !pair) {
      const gap = s.t - prev
      gaps++
      if (gap < 2) bursts++
      if (gap > 1e-6) {
        if (gap < smallest) smallest = gap
        if (positives < TIMING_SAMPLES) positiveGaps[positives++] = gap
      }
    }
    prev = s.t
  }
  // A coarse clock puts every gap on a multiple of its tick; a script that
  // sends key up with its key down has a smallest gap that is just its
  // fastest keystroke, and gaps off that grid.
  let resolution = smallest
  if (Number.isFinite(smallest) && smallest >= COARSE_TIMER_MS) {
    let onGrid = 0
    for (let i = 0; i < positives; i++) {
      const g = positiveGaps[i]
      if (Math.abs(g / smallest - Math.round(g / smallest)) * smallest < 0.5) onGrid++
    }
    if (onGrid < 0.9 * positives) resolution = 1
  }
  return { resolutionMs: resolution, burstShare: gaps && resolution < COARSE_TIMER_MS ? bursts / gaps : 0, gaps }
}

/** each modality is read over its own last MODALITY_WINDOW events, so that one modality's events never push another's out */
export const MODALITY_WINDOW = 5000
/** how far back the windows may reach into a long session */
const LOOKBACK = 50_000

const isPointerEvent = (k: string) => k === 'mm' || k === 'md' || k === 'mu' || k === 'c' || k === 'ts' || k === 'tm' || k === 'te'

/** start index of the last MODALITY_WINDOW events of each modality */
function windows(signals: readonly Signal[]): { pointer: number; keys: number; rest: number } {
  const stop = Math.max(0, signals.length - LOOKBACK)
  let pointer = signals.length
  let keys = signals.length
  let np = 0
  let nk = 0
  for (let i = signals.length - 1; i >= stop && (np < MODALITY_WINDOW || nk < MODALITY_WINDOW); i--) {
    const k = signals[i].k
    if (isPointerEvent(k)) {
      if (np < MODALITY_WINDOW) pointer = i
      np++
    } else if (k === 'kd' || k === 'ku') {
      if (nk < MODALITY_WINDOW) keys = i
      nk++
    }
  }
  return {
    pointer: np ? pointer : signals.length,
    keys: nk ? keys : signals.length,
    rest: Math.max(stop, signals.length - MODALITY_WINDOW),
  }
}

/** touches and no mouse in the pointer window: a phone or tablet, whose keys come from its own keyboard */
function touchOnly(signals: readonly Signal[], from: number): boolean {
  let touches = 0
  for (let i = from; i < signals.length; i++) {
    const k = signals[i].k
    if (k === 'mm' || k === 'md' || k === 'mu') return false
    if (k === 'ts') touches++
  }
  return touches > 0
}

export function sessionFeatures(signals: readonly Signal[]): SessionFeatures {
  const all = ownInput(signals)
  const w = windows(all)
  // other modalities' events inside the pointer window do not touch the strokes (strokesOf reads only positions, buttons and touches)
  const ptr = pointerFeatures(all, w.pointer)
  const softKeyboard = touchOnly(all, w.pointer)
  const clock = timing(all, w.rest, softKeyboard)
  const keyboard = typingStats(all, w.keys, softKeyboard)
  if (keyboard) keyboard.timerMs = clock.resolutionMs
  if (keyboard && clock.resolutionMs >= COARSE_TIMER_MS) keyboard.burstShare = 0
  return {
    timing: clock,
    pointer: ptr.features,
    strokes: ptr.strokes,
    pointerStrokes: ptr.sampleMs >= SPARSE_POINTER_MS || clock.resolutionMs >= SPARSE_POINTER_MS ? [] : ptr.strokeVectors,
    pointerTouch: ptr.touch,
    pointerSampleMs: ptr.sampleMs,
    pointerLines: ptr.lines,
    pointerCompass: ptr.compass,
    pointerSlowRun: ptr.slowRun,
    pointerEvenRun: ptr.evenRun,
    pointerStepGapCv: ptr.stepGapCv,
    pointerReversals: ptr.reversals,
    pointerFlashes: ptr.flashes,
    pointerClocks: ptr.clocks,
    keyboard,
    scroll: scrollStats(all, w.rest),
    touchContact: touchContact(all, w.rest),
    pressesWithoutMovement: ptr.moves === 0 ? ptr.presses : 0,
    pressesMovedUnseen: ptr.moves === 0 && ptr.pressSpots > 1,
    presses: { all: ptr.presses, afterJump: ptr.jumpPresses },
  }
}
