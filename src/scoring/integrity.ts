// Checks the model cannot make from one feature vector: does the client's
// vector match the signals, are the signals physically possible, are the
// features themselves possible. Each failed check is a reason code and a cap
// on hcs (see service.ts).
import { FEATURE_INDEX as F, FEATURE_NAMES, FEATURE_RANGES, FEATURE_WINDOW, NO_DATA, isInput, isMousePosition, kindCode } from './features'
import { ownInput, type Signal } from './signals'

export type Finding = { code: string; cap: number }

/** a client value disagrees when it is off by more than 5% of (1 + |server value|) */
const MISMATCH_TOLERANCE = 0.05
/**
 * Up to two disagreeing features are tolerated: engines may differ in the
 * last bits of Math.log/exp, and a batch lost in flight shifts a count or two.
 */
const MISMATCH_MIN_FEATURES = 3
/** CSS px per ms; a fast human flick stays below ~20 */
const IMPOSSIBLE_SPEED = 50
const IMPOSSIBLE_MIN_JUMP_PX = 50
const UNTRUSTED_BOT_SHARE = 0.05
/**
 * Real recordings have the odd jump (SapiMouse: 8 in 336 windows; a DELBOT
 * PC: 6% of its moves, uneven event delivery; a VM: bursts). A script that
 * sets the cursor's position jumps on most moves, so only a share counts.
 */
const IMPOSSIBLE_MIN_JUMPS = 3
const IMPOSSIBLE_MIN_SHARE = 0.2

/** counts and the constant feature 22 are never NO_DATA */
const ALWAYS_MEASURED = [F.ptr_moves_log, F.key_downs_log, F.text_without_keys, F.scroll_events_log]
/** when the count before the colon is 0, the features after it must be NO_DATA */
const NEEDS_DATA: [number, number[]][] = [
  [
    F.ptr_moves_log,
    [
      F.ptr_straightness,
      F.ptr_deviation,
      F.ptr_speed_log,
      F.ptr_speed_cv,
      F.ptr_accel_sd_norm,
      F.ptr_jerk_rms_log,
      F.ptr_heading_entropy,
      F.ptr_peaks_per_stroke,
      F.ptr_peak_time_share,
      F.ptr_power_law_dev,
      F.ptr_tremor_share,
      F.move_coalesced_mean,
    ],
  ],
  [F.key_downs_log, [F.key_hold_median, F.key_hold_cv, F.key_latency_median, F.key_latency_cv, F.key_interval_log_sd, F.key_rollover]],
  [F.scroll_events_log, [F.scroll_delta_distinct, F.scroll_gap_cv]],
]

export const isFeatureVector = (v: readonly unknown[]): v is number[] =>
  v.length === FEATURE_NAMES.length && v.every((x) => typeof x === 'number' && Number.isFinite(x))

/** sanity of a vector that did not come from our own extractor: ranges, and no statistics without the events behind them */
export function featureSanity(f: readonly number[]): Finding | undefined {
  const outOfRange = f.some((v, i) => {
    if (v === NO_DATA && !ALWAYS_MEASURED.includes(i)) return false
    const [lo, hi] = FEATURE_RANGES[i]
    return v < lo || v > hi
  })
  if (outOfRange) return { code: 'features_out_of_range', cap: 20 }
  if (NEEDS_DATA.some(([count, stats]) => f[count] === 0 && stats.some((i) => f[i] !== NO_DATA)))
    return { code: 'features_inconsistent', cap: 20 }
  return undefined
}

/** the vector's event counts, ln(1 + n): pointer moves, key downs, scrolls */
const COUNTS = [F.ptr_moves_log, F.key_downs_log, F.scroll_events_log]

/**
 * The client counted events the service does not hold: a batch it handed to the network never arrived.
 * A beacon (sent as a page closes) has no answer, so the SDK cannot take it back when it is lost or
 * refused (429, 503 during a deploy); every later vector then covers signals the service lacks. One lost
 * batch of 200 in a real session made 26–28 % of them mismatch (a bot, cap 20). Only while the service
 * holds fewer than FEATURE_WINDOW signals: then its window is the whole session and the client's cannot
 * hold fewer events of any kind (nor, in all, more than FEATURE_WINDOW).
 */
function clientCountedMore(client: readonly number[], server: readonly number[], stored: number): boolean {
  if (stored >= FEATURE_WINDOW) return false
  const n = (v: number) => Math.round(Math.expm1(v))
  // the client's window holds at most FEATURE_WINDOW signals: counts past that were never sent
  const claimed = COUNTS.reduce((sum, i) => sum + n(client[i]!), 0)
  return (
    claimed <= FEATURE_WINDOW && COUNTS.every((i) => n(client[i]!) >= n(server[i]!)) && COUNTS.some((i) => n(client[i]!) > n(server[i]!))
  )
}

/** `stored`: how many signals the server's vector was computed from (the session's, when it has them) */
export function featureMismatch(client: readonly number[], server: readonly number[], stored = FEATURE_WINDOW): Finding | undefined {
  if (!isFeatureVector(client)) return { code: 'feature_mismatch', cap: 20 }
  // Events lost on the way cannot be checked; the score is the stored signals' either way.
  if (clientCountedMore(client, server, stored)) return undefined
  const off = server.filter((s, i) => Math.abs(client[i] - s) > MISMATCH_TOLERANCE * (1 + Math.abs(s))).length
  return off >= MISMATCH_MIN_FEATURES ? { code: 'feature_mismatch', cap: 20 } : undefined
}

/**
 * From a client vector alone, whose untrusted_share also counts the clicks
 * and focus events pages dispatch themselves: only a share no page produces.
 */
export function untrustedVectorFinding(share: number): Finding | undefined {
  return share >= UNTRUSTED_BOT_SHARE ? { code: 'untrusted_events', cap: 10 } : undefined
}

/** ≥ 50 px between consecutive mouse positions at more than 50 px/ms */
function impossibleJump(a: Signal, b: Signal): boolean {
  const d = Math.hypot(b.x! - a.x!, b.y! - a.y!)
  const dt = b.t - a.t
  return d >= IMPOSSIBLE_MIN_JUMP_PX && (dt <= 0 || d / dt > IMPOSSIBLE_SPEED)
}

/**
 * One pass over the person's events (signals.ts, ownInput: a pen's touch twins are its pointer events
 * again, and a form filler's key events are no one's input): input events and the untrusted among them
 * (untrusted clicks and focus events are left out: pages call element.click() and focus() themselves),
 * times going back, and consecutive mouse positions with the jumps among them. The findings below and
 * the figures of their reasons (reasons.ts) both read these.
 */
export function integrityCounts(recorded: readonly Signal[]) {
  const signals = ownInput(recorded)
  let input = 0
  let untrusted = 0
  let back = 0
  let jumps = 0
  let pairs = 0
  let prev: Signal | undefined
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i]
    if (i > 0 && s.t < signals[i - 1].t) back++
    const kind = kindCode(s.k)
    if (!isInput(kind)) continue
    input++
    if (s.tr === false) untrusted++
    if (!isMousePosition(kind) || !Number.isFinite(s.x) || !Number.isFinite(s.y) || !Number.isFinite(s.t)) continue
    if (prev) {
      pairs++
      if (impossibleJump(prev, s)) jumps++
    }
    prev = s
  }
  return { input, untrusted, back, jumps, pairs }
}

/**
 * What a feature vector cannot show: untrusted input events (any → cap 60, ≥ 5% → cap 10), time going
 * back (ingest keeps t ordered within a batch, so that is reordered or forged batches), and pointer
 * jumps no hand makes on a fifth of its moves.
 */
export function signalFindings(recorded: readonly Signal[]): Finding[] {
  const { input, untrusted, back, jumps, pairs } = integrityCounts(recorded)
  const findings: Finding[] = []
  if (untrusted > 0) findings.push({ code: 'untrusted_events', cap: untrusted / input >= UNTRUSTED_BOT_SHARE ? 10 : 60 })
  if (back) findings.push({ code: 'timestamps_non_monotonic', cap: 40 })
  if (jumps >= IMPOSSIBLE_MIN_JUMPS && jumps >= IMPOSSIBLE_MIN_SHARE * pairs) findings.push({ code: 'impossible_speed', cap: 20 })
  return findings
}
