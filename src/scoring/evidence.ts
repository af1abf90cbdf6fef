// Per-modality evidence, in log-odds that the session is human. The service
// adds up the evidence of the modalities the session has; a modality without
// data gives nothing, so its absence never moves the score (docs/scoring.md,
// "Modalities"). Pointer evidence comes from the calibrated trees; keyboard,
// scroll, touch and click evidence are rules, because there is no real data
// to train them on: the keyboard rules sit well outside the figures of 1,000
// real typists (ml/data/real/README.md) and fire only on clear automation.
import { FEATURE_INDEX as F, NO_DATA } from './features'
import { type M4Model, type StrokeTrees, type TreeEnsemble, calibratedLogit, strokeShare, strokeTerm, treeContributions } from './inference'
import {
  COARSE_TIMER_MS,
  POINTER_INDEX,
  type ScrollStats,
  type SessionFeatures,
  SPARSE_POINTER_MS,
  type TypingStats,
} from './session-features'

export type Modality = 'pointer' | 'keyboard' | 'scroll' | 'touch' | 'clicks' | 'timing'
/**
 * `codes`: what a rule found. `explain`: the trees' account of what held a modality back from
 * human_verified, worked out only for a verdict that needs it (judgeEvidence), since where a verdict
 * falls short depends on the organization's thresholds
 */
export type Evidence = { modality: Modality; z: number; codes: string[]; explain?: () => string[] }

/** what each pointer feature says when it pushes toward bot; the code of the largest push names the behaviour */
const POINTER_CODE: Record<string, string> = {
  strokes_log: 'pointer_unusual_speed',
  straight_med: 'pointer_path_too_straight',
  straight_p90: 'pointer_path_too_straight',
  straight_share_99: 'pointer_path_too_straight',
  deviation_med: 'pointer_path_too_straight',
  turn_per_px_med: 'pointer_path_too_smooth',
  wiggle_med: 'pointer_path_too_smooth',
  jerk_med: 'pointer_path_too_smooth',
  jerk_p10: 'pointer_path_too_smooth',
  speed_cv_med: 'pointer_constant_velocity',
  speed_cv_p10: 'pointer_constant_velocity',
  speed_sd_between: 'pointer_constant_velocity',
  peaks_per_s_med: 'pointer_no_corrections',
  multi_peak_share: 'pointer_no_corrections',
  homing_share_med: 'pointer_no_corrections',
  end_speed_med: 'pointer_no_corrections',
  peak_share_med: 'pointer_unnatural_velocity_profile',
  peak_share_sd: 'pointer_unnatural_velocity_profile',
  accel_asym_med: 'pointer_unnatural_velocity_profile',
  start_speed_med: 'pointer_unnatural_velocity_profile',
  curv_speed_corr: 'pointer_curvature_speed_mismatch',
  step_repeat_share: 'pointer_mechanical_steps',
  dt_cv_med: 'pointer_regular_timing',
  dt_repeat_share: 'pointer_regular_timing',
  pause_cv: 'pointer_regular_timing',
  speed_log_med: 'pointer_unusual_speed',
  duration_log_med: 'pointer_unusual_speed',
  step_dt_corr_med: 'pointer_mechanical_steps',
  raw_speed_cv_med: 'pointer_constant_velocity',
  corner_speed_med: 'pointer_curvature_speed_mismatch',
  fast_corner_share: 'pointer_curvature_speed_mismatch',
  // client-vector names (scoreFeatures)
  ptr_straightness: 'pointer_path_too_straight',
  ptr_deviation: 'pointer_path_too_straight',
  ptr_speed_log: 'pointer_unusual_speed',
  ptr_speed_cv: 'pointer_constant_velocity',
  ptr_accel_sd_norm: 'pointer_constant_velocity',
  ptr_jerk_rms_log: 'pointer_path_too_smooth',
  ptr_heading_entropy: 'pointer_path_too_smooth',
  ptr_peaks_per_stroke: 'pointer_no_corrections',
  ptr_peak_time_share: 'pointer_unnatural_velocity_profile',
  ptr_power_law_dev: 'pointer_curvature_speed_mismatch',
  ptr_tremor_share: 'pointer_path_too_smooth',
  click_hold_mean: 'click_timing_unnatural',
  click_dwell_mean: 'click_timing_unnatural',
  ptr_moves_log: 'pointer_unusual_speed',
}

/**
 * The behaviour codes of the features that pushed the score toward bot, largest first: the session
 * trees' contributions, and the stroke trees' (each stroke's, averaged and weighted as strokeTerm weighs
 * their margins: strokeShare), added by code: a stroke feature is named after the session feature that summarises it.
 */
function pointerCodes(e: TreeEnsemble, x: ArrayLike<number>, strokes?: StrokeTerms): string[] {
  const byCode = new Map<string, number>()
  const add = (names: readonly string[], contrib: ArrayLike<number>) => {
    for (let i = 0; i < contrib.length; i++) {
      const code = POINTER_CODE[names[i]] ?? 'pointer_dynamics_unnatural'
      byCode.set(code, (byCode.get(code) ?? 0) + contrib[i])
    }
  }
  add(e.feature_names, treeContributions(e, x))
  if (strokes?.trees && strokes.vectors.length) {
    const { trees, vectors, counted } = strokes
    const sum = new Float64Array(trees.feature_names.length)
    for (const v of vectors) {
      const c = treeContributions(trees, v)
      for (let i = 0; i < c.length; i++) sum[i] += c[i]
    }
    add(
      trees.feature_names,
      sum.map((v) => strokeShare(trees, counted, v / vectors.length))
    )
  }
  const bad = [...byCode].filter(([, v]) => v < 0).sort((a, b) => a[1] - b[1])
  if (!bad.length) return ['pointer_dynamics_unnatural']
  // the largest push, and the next one when it is at least half as large
  return bad.filter(([, v], i) => i === 0 || (i === 1 && v <= bad[0][1] / 2)).map(([c]) => c)
}

/** a session's scored strokes, for the stroke trees */
type StrokeTerms = { trees: StrokeTrees | undefined; vectors: readonly (readonly number[])[]; counted: number }

function pointerEvidence(e: TreeEnsemble, x: ArrayLike<number>, touch = false, strokes?: StrokeTerms): Evidence {
  const extra = strokes ? strokeTerm(strokes.trees, strokes.vectors, strokes.counted) : 0
  return { modality: 'pointer', z: calibratedLogit(e, x, touch, extra), codes: [], explain: () => pointerCodes(e, x, strokes) }
}

/**
 * Keyboard: judged against the real figures. Hard rules are far outside the
 * 1st/99th percentile of 1,000 typists (each named below with its figure);
 * mild ones lie just outside it and take the human evidence away, down to
 * neutral (0) at most: alone they make a session suspicious, never a bot.
 * Typing inside the figures is human evidence growing with the key count.
 */
const HARD = -6
const MILD = -1.5
const MILD_CAP = -2.2
const MIN_KEYS = 8
/**
 * Keys (presses, or measured holds) before a CV under the hard cut is a machine's. The 1,000 typists'
 * figures are over whole sessions; a person typing one short word, a name or a code, keeps an even pace
 * over a few keys: real free typing (ml/experiments/keystrokes.ts, 10 s windows of 8–11 presses) had
 * latency CVs down to 0.06 and hold CVs under 0.08, 5 of 308 such windows a bot until 2026-11-28; none
 * of 2,800 windows of 12 or more presses reached a hard cut. Under it the cut is mild: suspicious at worst.
 */
const STEADY_KEYS = 12
/** presses before a session without any rollover says something (a p1 typist rolls over about once in 200) */
const KEY_BY_KEY_MIN = 40
/** (p90 − p50) / (p50 − p10) of the latencies below which they lack a hand's long tail (real free typing: p1 1.26) */
const EVEN_DELAYS_TAIL = 1.2

export function keyboardEvidence(s: TypingStats): Evidence | null {
  if (s.downs < MIN_KEYS) return null
  // On a clock of 50 ms or coarser (resistFingerprinting: 100 ms) holds and latencies are mostly 0 or one tick: only missing key ups say anything.
  if (s.timerMs >= 50)
    return s.ups === 0 ? { modality: 'keyboard', z: HARD, codes: ['typing_no_key_up'] } : { modality: 'keyboard', z: 0.9, codes: [] }
  const hard = new Set<string>()
  const mild = new Set<string>()
  const ok = (v: number) => Number.isFinite(v)
  // A touch screen's keyboard fires a key's down and up together when the finger lets go: its holds
  // and rollover are the keyboard's (near 0 and none), so only the rhythm between keys is judged.
  const holds = s.softKeyboard ? 0 : s.holds
  // median hold: real p1 64 ms
  if (holds >= 5 && s.holdMedian < 20) hard.add('typing_zero_hold')
  else if (holds >= 5 && s.holdMedian < 40) mild.add('typing_zero_hold')
  if (holds >= MIN_KEYS && s.holdMedian > 600) mild.add('typing_long_holds')
  // CV of holds: real p1 0.21. The CVs' hard cuts wait for STEADY_KEYS: real people typing one short
  // word at an even pace reach them over fewer keys (below).
  if (holds >= STEADY_KEYS && ok(s.holdCv) && s.holdCv < 0.08) hard.add('typing_identical_holds')
  else if (holds >= MIN_KEYS && ok(s.holdCv) && s.holdCv < 0.14) mild.add('typing_identical_holds')
  // CV of latencies: real p1 0.49
  if (s.downs >= STEADY_KEYS && ok(s.latencyCv) && s.latencyCv < 0.2) hard.add('typing_fixed_rhythm')
  else if (ok(s.latencyCv) && s.latencyCv < 0.36) mild.add('typing_fixed_rhythm')
  // median latency: real p1 88 ms; presses per second: real p99 6.92
  if ((ok(s.latencyMedian) && s.latencyMedian < 35) || (ok(s.pressesPerSecond) && s.pressesPerSecond > 20)) hard.add('typing_too_fast')
  else if ((ok(s.latencyMedian) && s.latencyMedian < 60) || (ok(s.pressesPerSecond) && s.pressesPerSecond > 12)) mild.add('typing_too_fast')
  // share of gaps under 2 ms: real p99 0.113
  if (s.burstShare > 0.5) hard.add('typing_event_burst')
  else if (s.burstShare > 0.25) mild.add('typing_event_burst')
  // key downs without any key up: no keyboard does that
  if (s.ups === 0) hard.add('typing_no_key_up')
  // Two figures outside the real range together: not one press of 40 overlaps the next (rollover share
  // p1 0.005) and the rhythm or the holds steadier than any real typist's, or latencies without a
  // hand's right tail. Steady typists are the skilled ones, and they roll over most (136M Keystrokes);
  // a hand's latencies pile up short with a long tail of pauses (real free typing, 60 s windows of
  // ≥ 40 presses: tail ratio 1st percentile 1.26, median 3.6; ml/experiments/keystrokes.ts), where a
  // loop's delays drawn between two bounds spread evenly (ratio ≈ 1). So this is a loop typing key by key.
  const evenDelays = ok(s.latencyTail) && s.latencyTail < EVEN_DELAYS_TAIL
  if (
    !s.softKeyboard &&
    s.downs >= KEY_BY_KEY_MIN &&
    s.rollover === 0 &&
    (evenDelays || mild.has('typing_fixed_rhythm') || mild.has('typing_identical_holds'))
  )
    hard.add('typing_key_by_key')
  if (hard.size) return { modality: 'keyboard', z: HARD * hard.size, codes: [...hard, ...mild] }
  // alone, natural typing reaches human_verified (z ≥ 0.85) from MIN_KEYS keys on
  const human = Math.min(1.8, 0.9 + s.downs / 40)
  // mild hits take the human evidence away, down to neutral, never below: typing alone is held against a session only for clear automation
  if (mild.size) return { modality: 'keyboard', z: Math.max(0, human + Math.max(MILD_CAP, MILD * mild.size)), codes: [...mild] }
  return { modality: 'keyboard', z: human, codes: [] }
}

/** scrolling: identical steps at a fixed rhythm is a script (a wheel gives identical steps, but a hand does not keep the rhythm) */
export function scrollEvidence(s: ScrollStats): Evidence | null {
  if (s.events < 5) return null
  if (s.distinctShare <= 0.2 && Number.isFinite(s.gapCv) && s.gapCv < 0.05)
    return { modality: 'scroll', z: -5, codes: ['scroll_identical_steps'] }
  return { modality: 'scroll', z: Math.min(1.2, 0.9 + s.events / 50), codes: [] }
}

/** log-odds of hcs 31, just above the bot threshold: evidence that alone makes a session suspicious, never a bot */
const SUSPICIOUS_AT_WORST = Math.log(0.31 / 0.69)

/**
 * Some phones report a constant contact (a screen that senses no pressure reports force 0, one that
 * reports a single point radius 1); others vary it on every event. Mild: alone it makes a session
 * suspicious, never a bot; it adds to other evidence against a session.
 */
function touchEvidence(t: NonNullable<SessionFeatures['touchContact']>): Evidence | null {
  if (t.values >= 10 && t.variance === 0) return { modality: 'touch', z: SUSPICIOUS_AT_WORST, codes: ['touch_contact_constant'] }
  return null
}

function clickEvidence(presses: number, movedUnseen: boolean): Evidence | null {
  if (presses === 0) return null
  // A mouse that presses without ever moving: a script's element click, or a cursor resting on the
  // button (a page that opened under it, a banner that appeared there). One or two such presses were a
  // bot on their own (−1.5: hcs 18) until m4-2026.11.9. A resting cursor presses on one spot as often as
  // the person likes (a double or triple click, a gallery's next arrow: SapiMouse people press two and
  // three times on one spot with no move between, and one 3 s window held nothing else), so only three
  // or more presses at more than one spot, with no move to get between them, are a script's.
  return { modality: 'clicks', z: presses >= 3 && movedUnseen ? -4 : SUSPICIOUS_AT_WORST, codes: ['click_without_movement'] }
}

/**
 * Presses that land right after the pointer jumped onto their spot (session-features.ts, jumpedOnto):
 * Playwright's `locator.click()` and Puppeteer's `page.click()`, one move onto the element and the press
 * at once. In a real browser (ml/experiments/browser-bots.ts) such visits with a few wheel ticks passed
 * as human_verified on the scroll alone (7 of 20). Real people: 4 of 22,799 SapiMouse presses, none of
 * DELBOT's, at most 3 % of a session's (2 of 105). Two such presses, most of a session's, make it
 * suspicious; three a bot.
 */
function jumpPressEvidence(p: SessionFeatures['presses']): Evidence | null {
  if (p.afterJump < 2 || p.afterJump < 0.6 * p.all) return null
  return { modality: 'clicks', z: p.afterJump >= 3 ? -4 : SUSPICIOUS_AT_WORST, codes: ['click_after_jump'] }
}

/** a pointer judged on a clock this coarse (resistFingerprinting: 100 ms), or sampled this sparsely (a remote desktop), may make a session suspicious, never a bot */
export const POINTER_COARSE_CLOCK_MS = SPARSE_POINTER_MS
/** variation of a sparse pointer's step lengths over that of its gaps (session-features.ts, pointerStepGapCv) under which the floor no longer holds */
const SPARSE_STEADY_STEPS = 0.5
/** share of a sparse pointer's steps that repeat the previous one, from which the floor no longer holds */
const SPARSE_REPEATED_STEPS = 0.1
/** consecutive slow steps (session-features.ts, slowRun) from which a pointer sampled every frame is a move-and-sleep loop */
const SLOW_RUN_MIN = 10
/** reversals at speed (session-features.ts, pointerReversals): pairs before their share counts, the share; one-frame backsteps, and their share of the triples */
const REVERSAL_PAIRS_MIN = 20
const REVERSAL_SHARE = 0.12
const BACKSTEPS_MIN = 3
const BACKSTEP_SHARE = 0.02
/** a run of even steps (session-features.ts, pointerEvenRun) from which a sparse pointer is a metronome and the floor no longer holds */
const SPARSE_EVEN_RUN = 12
/** tested strokes, and the share of them on a line, from which a sparse pointer is a tween along lines and the floor no longer holds */
const SPARSE_LINES_MIN = 5
const SPARSE_ON_LINE_SHARE = 0.9

/**
 * Compass runs (session-features.ts, pointerCompass) from which a mouse pointer is moved by Mouse Keys: at
 * least this many runs, in this many directions, covering this share of the distance moved. Simulated
 * Mouse Keys visits (ml/generators/assistive.ts): 10th percentile 12 runs, 4 directions, share 0.96 (a
 * person may use only two keys: right and down). Real people's share: at most 0.48 (SapiMouse, DELBOT);
 * every bot family of the eval: at most 0.49, but for five DELBOT GAN circles (0.54–0.93) pinned to the top
 * of the page, with 2–4 runs.
 */
const MOUSE_KEYS_RUNS = 6
const MOUSE_KEYS_DIRECTIONS = 2
const MOUSE_KEYS_SHARE = 0.85

/**
 * Flashes (session-features.ts, pointerFlashes) from which a pointer on a fine clock is a script's: this many,
 * and at least this share of its long mouse strokes. A hand needs longer than 60 ms to aim across 100 px
 * from rest to rest: real people made at most 1 in a session (SapiMouse: 1 of 336 windows with one; Balabit's
 * 6,577 windows of 60 s: 8 with one; DELBOT's people none), and at most 2 counting strokes of 2 or 3 samples
 * too, which a display faster than 60 Hz would sample more often. A script's stepped moves delivered as they
 * are sent (Puppeteer in Firefox, 1–3 ms apart) are over that fast; when all of its strokes are, the trees see
 * none and the session had no pointer evidence.
 */
const FLASHES_MIN = 3
const FLASH_SHARE = 0.5
/**
 * Clean stroke clocks (session-features.ts, pointerClocks) switching between the session's and another one,
 * not a whole multiple of it, this many times, with this many strokes on the other: the strokes came from
 * different devices, as in a session stitched from different people's recordings. Real people's clocks never
 * switched more than twice (SapiMouse's 336 windows: never; DELBOT's people: once in one recording; Balabit's
 * 6,577 windows of 60 s: twice at most). Mild: a display whose rate changes as it likes could do it.
 */
const CLOCK_SWITCHES_MIN = 4
const CLOCK_OFF_MIN = 2

/** every modality's evidence of a session with stored signals */
export function sessionEvidenceOf(model: M4Model, f: SessionFeatures): Evidence[] {
  const out: Evidence[] = []
  // a pointer whose positions arrive this far apart: a remote desktop's tick, not a browser's
  const sampledSparsely = f.pointer !== null && f.pointerSampleMs >= POINTER_COARSE_CLOCK_MS
  // a coarse clock does the same to every stroke (and to the last step before a press)
  const sparse = f.timing.resolutionMs >= POINTER_COARSE_CLOCK_MS || sampledSparsely
  // a timer fine enough to read a movement's duration and a stroke's clock
  const fineClock = f.timing.resolutionMs < COARSE_TIMER_MS
  if (f.pointer) {
    const p = pointerEvidence(model.pointer, f.pointer, f.pointerTouch, {
      trees: model.stroke,
      vectors: f.pointerStrokes,
      counted: f.strokes,
    })
    // A 100 ms clock puts a whole stroke on a few ticks: a hand's steps then look like a script's
    // jumps between sleeps (real people: 13 % flagged on such a clock in the eval, 0–3 % otherwise).
    // A remote desktop does the same on a fine clock: it delivers about ten positions a second
    // (people on one, never trained on: 5.3 % flagged without this, ml/experiments/balabit.ts).
    // Sparse sampling hides a hand's dynamics, not its steps: a hand sampled ten times a second moves
    // a different distance every tick (99th percentile of the share of steps that repeat the one
    // before: 3.7 % in Balabit's remote-desktop windows, 7 % in DELBOT's sparsely sampled people; the
    // largest 8.3 % and 7.5 %), so a pointer that repeats its steps (a loop that moves the cursor by a
    // fixed step and sleeps) keeps the trees' judgement. Nor does it bend a path: a pointer whose strokes
    // lie on straight lines, every sample within a pixel of the chord, is a tween played along a line
    // (pyautogui.moveTo with its default 50 ms sleep: steps that vary, so not `mechanical`). A hand's
    // path bends even sampled ten times a second: at most 60 % of the tested strokes of a Balabit window
    // with five or more (0.75 with four), at most 8 % of a SapiMouse window re-captured sparsely.
    const mechanical = f.pointer[POINTER_INDEX.step_repeat_share] >= SPARSE_REPEATED_STEPS
    // Nor does a tick hold a hand's step to one length: sampled on a tick, the distance varies and the gap
    // does not (step-length CV over gap CV ≥ 1.43 in 5,356 Balabit windows; ≥ 0.66 in DELBOT's people in a
    // virtual machine, ≥ 1.08 of any real person re-captured on a 100 ms clock or a remote desktop). A
    // loop that moves the cursor by about one length and sets its speed by how long it sleeps varies the
    // gap instead (DELBOT's pynput bots sampled that sparsely: median 0.44).
    const steadySteps = f.pointerStepGapCv < SPARSE_STEADY_STEPS
    const { tested, onLine } = f.pointerLines
    const alongLines = tested >= SPARSE_LINES_MIN && onLine >= SPARSE_ON_LINE_SHARE * tested
    // Nor does a tick hold a hand to one speed: twelve steps in a row, each as long as the one before and
    // as far after it (±5 % or ±1.5 px, ±5 % of the gap), are a loop that moves the cursor a fixed
    // distance per fixed sleep (pyautogui drawing a polygon with its 0.1 s pause, pynput with a constant
    // sleep). Real people sampled that sparsely: at most 6 in a row (12,551 sparse Balabit windows, every
    // real person re-captured through a remote desktop or on a 100 ms clock; DELBOT's people in a virtual
    // machine 5).
    const metronome = f.pointerEvenRun >= SPARSE_EVEN_RUN
    // A touch pointer is floored the same way: the trees have met people on a phone only drawing
    // circles (DELBOT) and swipes only from bots, so they call any session of flicks and taps a bot
    // (generated flicks of every velocity profile at 60 and 120 Hz: all of them). On a touch screen the
    // trees alone may make a session suspicious; a bot needs other evidence too (a constant contact,
    // bursts, untrusted events).
    const touchFloor = f.pointerTouch
    // Mouse Keys (an accessibility setting of every desktop system, and of keyboard firmware) moves the
    // cursor for people who cannot use a mouse: one step per timer tick along the axis or diagonal of the
    // key held, speeding up to a top speed. Every tree and step rule sees a machine in that, rightly: it
    // is one, driven by a person. So a pointer moving only that way may make a session suspicious, never
    // a bot, and says why (a customer can offer an accessible challenge); the cursor's mechanics are then
    // not judged by the step rules below. A script that moves only along the compass gains that much;
    // integrity checks, bursts and the other modalities still judge it.
    const c = f.pointerCompass
    const mouseKeys = !f.pointerTouch && c.runs >= MOUSE_KEYS_RUNS && c.directions >= MOUSE_KEYS_DIRECTIONS && c.share >= MOUSE_KEYS_SHARE
    if (((sparse && !mechanical && !alongLines && !steadySteps && !metronome) || touchFloor || mouseKeys) && p.z < SUSPICIOUS_AT_WORST)
      p.z = SUSPICIOUS_AT_WORST
    if (mouseKeys) {
      const trees = p.explain!
      p.explain = () => ['pointer_mouse_keys', ...trees()]
    }
    out.push(p)
    // A mouse reports every count it moves and the browser passes a move on every frame, so a pointer
    // otherwise sampled finely that advances in jumps of several pixels a tenth of a second apart, ten
    // times in a row, is moved by a loop that sleeps (DELBOT's pynput bots: half of their pages). Real
    // people on a browser's clock: at most 3 in a row (SapiMouse, DELBOT, 1,125 fine Balabit windows: 0
    // at 10); a virtual machine's lag does it too (DELBOT's people in one: up to 10 as recorded, sampled
    // every 50 ms so sparse; up to 17 re-captured at 60–240 Hz, fine again).
    // Both rules are mild (−1.5, the keyboard's mild weight): strokes the trees find human (z ≥ 1.31,
    // hcs 79) keep a session above the bot threshold. As hard evidence (−4) they caught 3 more of the
    // 54 pynput pages and nothing else in the eval (m4-2026.11.10).
    if (sparse && steadySteps && !mouseKeys) out.push({ modality: 'pointer', z: MILD, codes: ['pointer_mechanical_steps'] })
    if (!sparse && f.pointerSlowRun >= SLOW_RUN_MIN && !mouseKeys) out.push({ modality: 'pointer', z: MILD, codes: ['pointer_slow_steps'] })
    // A hand moving the mouse ≥ 3 px a frame carries momentum: to turn back it slows first (small steps).
    // Turning by more than 90° between two such steps, often, or stepping back for one frame between two
    // steps that go on (twice reversed within ~33 ms: a 30 Hz oscillation), is noise added to a scripted
    // path (DELBOT's pyHM and GAN bots). Real people: a share of at most 0.076 of their fast step pairs in
    // any capture on a fine clock (a frame clock merges samples: up to 0.16), at most 2 backsteps and 0.7 %
    // of fast triples. Mild, as above: a mouse with a failing sensor jitters too.
    const r = f.pointerReversals
    if (!sparse && fineClock && r.pairs >= REVERSAL_PAIRS_MIN && r.reversals >= REVERSAL_SHARE * r.pairs)
      out.push({ modality: 'pointer', z: MILD, codes: ['pointer_impossible_reversals'] })
    if (!sparse && r.backsteps >= BACKSTEPS_MIN && r.backsteps >= BACKSTEP_SHARE * r.triples)
      out.push({ modality: 'pointer', z: MILD, codes: ['pointer_impossible_reversals'] })
  }
  // Mild, as the step rules: a session's other pointer evidence still counts.
  const { long, flashes } = f.pointerFlashes
  if (!sampledSparsely && fineClock && flashes >= FLASHES_MIN && flashes >= FLASH_SHARE * long)
    out.push({ modality: 'pointer', z: MILD, codes: ['pointer_flash_strokes'] })
  const { off, switches } = f.pointerClocks
  if (!sampledSparsely && fineClock && switches >= CLOCK_SWITCHES_MIN && off >= CLOCK_OFF_MIN)
    out.push({ modality: 'pointer', z: MILD, codes: ['pointer_mixed_clocks'] })
  const k = f.keyboard && keyboardEvidence(f.keyboard)
  if (k) out.push(k)
  const s = f.scroll && scrollEvidence(f.scroll)
  // A remote desktop delivers a wheel spin on its own tick too (a Balabit person: seven notches 109 ms
  // apart, its pointer's tick), so when the pointer arrives that sparsely a steady scroll rhythm is the
  // transport's, not the hand's, and says nothing.
  if (s && !(sampledSparsely && s.z < 0)) out.push(s)
  const t = f.touchContact && touchEvidence(f.touchContact)
  if (t) out.push(t)
  const c = !f.pointer && !f.touchContact ? clickEvidence(f.pressesWithoutMovement, f.pressesMovedUnseen) : null
  if (c) out.push(c)
  // On a coarse clock or a sparse pointer a hand's last step before a press can look like a jump.
  const j = sparse ? null : jumpPressEvidence(f.presses)
  if (j) out.push(j)
  const burst = burstEvidence(f.timing.burstShare)
  if (burst) out.push(burst)
  return out
}

/**
 * Input events back to back (< 2 ms apart) for most of the session:
 * DevTools-protocol dispatch. Real sessions stay far below half. On a coarse
 * clock the share is not measured (session-features.ts), since many real
 * events then share a tick.
 */
function burstEvidence(share: number): Evidence | null {
  return share >= 0.5 ? { modality: 'timing', z: -4, codes: ['event_burst'] } : null
}

const has = (v: number) => v !== NO_DATA

/** the same evidence from a 34-number vector alone (scoreFeatures, server-side batches without signals) */
export function vectorEvidenceOf(model: M4Model, f: readonly number[]): Evidence[] {
  const out: Evidence[] = []
  const e = model.vector_pointer
  if (has(f[F.ptr_straightness]))
    out.push(
      pointerEvidence(
        e,
        e.feature_index.map((i) => f[i])
      )
    )
  const downs = Math.round(Math.expm1(Math.max(0, f[F.key_downs_log])))
  if (has(f[F.key_latency_median])) {
    const k = keyboardEvidence({
      downs,
      // the vector has no key-up count; a measured hold implies ups
      ups: has(f[F.key_hold_median]) ? downs : 0,
      holds: has(f[F.key_hold_median]) ? downs : 0,
      holdMedian: has(f[F.key_hold_median]) ? f[F.key_hold_median] : Number.NaN,
      holdCv: has(f[F.key_hold_cv]) ? f[F.key_hold_cv] : Number.NaN,
      latencyMedian: f[F.key_latency_median],
      latencyCv: has(f[F.key_latency_cv]) ? f[F.key_latency_cv] : Number.NaN,
      latencyTail: Number.NaN,
      rollover: has(f[F.key_rollover]) ? f[F.key_rollover] : Number.NaN,
      burstShare: 0,
      pressesPerSecond: Number.NaN,
      timerMs: Number.NaN,
    })
    if (k) out.push(k)
  }
  const scrolls = Math.round(Math.expm1(Math.max(0, f[F.scroll_events_log])))
  if (scrolls >= 3) {
    const s = scrollEvidence({
      events: scrolls,
      distinctShare: has(f[F.scroll_delta_distinct]) ? f[F.scroll_delta_distinct] : 1,
      gapCv: has(f[F.scroll_gap_cv]) ? f[F.scroll_gap_cv] : Number.NaN,
    })
    if (s) out.push(s)
  }
  if (f[F.touch_radius_pressure_var] === 0) out.push({ modality: 'touch', z: SUSPICIOUS_AT_WORST, codes: ['touch_contact_constant'] })
  if (f[F.ptr_moves_log] === 0 && has(f[F.click_hold_mean]) && !has(f[F.touch_radius_pressure_var]) && !has(f[F.swipe_peak_time_share]))
    out.push({ modality: 'clicks', z: SUSPICIOUS_AT_WORST, codes: ['click_without_movement'] })
  // the vector does not show the clock: a 100 ms timer also gives a high share, so only a share no coarse clock produces counts
  const share = f[F.gap_burst_share]
  const grid = f[F.gap_grid_share]
  const burst = share !== NO_DATA && !(grid !== NO_DATA && grid >= 0.8) ? burstEvidence(share) : null
  if (burst) out.push(burst)
  return out
}
