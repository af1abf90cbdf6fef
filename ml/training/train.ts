// npm run train — the M4 model from real recordings (ml/training/real.ts):
// held-out models per human fold and per bot family give the margins the
// calibration is fitted on; the shipped ensembles are then fitted on
// everything. Writes src/scoring/model/<version>.json; the same data and
// seed give the same file. `npm run train -- --check` retrains and fails if
// the committed file differs (it depends on ml/generators as committed).
import { readFileSync, writeFileSync } from 'node:fs'
import {
  HUMAN_FLAG_TARGET,
  MIN_HUMAN_SHIFT,
  M4_PARAMS,
  M4_SEED,
  M4_VERSION,
  PERTURBATIONS_NOTE,
  STROKE_CAP,
  STROKE_WEIGHT,
  STROKES_PER_ROW,
  assemble,
  botSources,
  buildRows,
  calibrateForHumans,
  fitEnsemble,
  fitStrokes,
  serializeM4,
  trainHeldOut,
} from './real'
import { SPARSE_POINTER_MS, STROKES_SCORED } from '../../src/scoring/session-features'

const path = new URL(`../../src/scoring/model/${M4_VERSION}.json`, import.meta.url)
const started = performance.now()
const log = (s: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${s}`)

const sources = await botSources()
const rows = await buildRows(M4_SEED, sources)
log(`${rows.length} rows (${rows.filter((r) => r.human).length} real-human windows)`)
const held = trainHeldOut(rows, M4_SEED, log)
const cal = { pointer: calibrateForHumans(rows, held, 'pointer'), vector: calibrateForHumans(rows, held, 'vector') }
const counts: Record<string, number> = {}
for (const r of rows) counts[r.family] = (counts[r.family] ?? 0) + 1
const ab = (c: { a: number; b: number; b_touch: number }, touch: boolean) =>
  touch ? { a: c.a, b: c.b, b_touch: c.b_touch } : { a: c.a, b: c.b }
const model = assemble(
  M4_VERSION,
  fitEnsemble(rows, 'pointer', () => true, M4_SEED),
  fitEnsemble(rows, 'vector', () => true, M4_SEED),
  { pointer: ab(cal.pointer, true), vector: ab(cal.vector, false) },
  {
    seed: M4_SEED,
    params: M4_PARAMS,
    humans: 'real: SapiMouse (81 people, windows of 5–60 s, 15 % of them 2–6 s), DELBOT humans (5 recording setups); no synthetic humans',
    bots: sources.map((s) => `${s.family} (${s.source})`),
    negatives: PERTURBATIONS_NOTE,
    augmentation: 'optional fields stripped; 60% of copies re-captured (integer ms, 16.7/100 ms timers, 60/120/240 Hz)',
    calibration:
      'weighted Platt on held-out margins: each real human from the model of the fold without that person (group 5-fold), each bot from the model without its family; then the intercept raised until held-out real humans flagged ≤ the targets per group, and by at least min_human_shift',
    human_flag_target: HUMAN_FLAG_TARGET,
    min_human_shift: MIN_HUMAN_SHIFT,
    stroke_trees: `the same parameters over single strokes (up to ${STROKES_PER_ROW} drawn from each row, its weight spread over them); a session's up to ${STROKES_SCORED} strokes add their mean margin × ${STROKE_WEIGHT}·√min(strokes, ${STROKE_CAP}) to the pointer margin before its calibration; none from a pointer sampled ≥ ${SPARSE_POINTER_MS} ms apart or on a ≥ ${SPARSE_POINTER_MS} ms clock`,
    calibration_detail: { pointer: cal.pointer, vector: cal.vector },
    rows: counts,
  },
  fitStrokes(rows, () => true, M4_SEED)
)
const text = serializeM4(model)

if (process.argv.includes('--check')) {
  const same = readFileSync(path, 'utf8') === text
  console.log(same ? `${M4_VERSION}.json is reproducible` : `${M4_VERSION}.json differs from a fresh training run`)
  process.exit(same ? 0 : 1)
}
writeFileSync(path, text)
log(
  `wrote ${path.pathname} (${(text.length / 1024).toFixed(0)} KiB), pointer calibration a=${cal.pointer.a.toFixed(4)} b=${cal.pointer.b.toFixed(4)} (Platt ${cal.pointer.platt_b.toFixed(4)} + human shift ${cal.pointer.human_shift.toFixed(4)}; touch sessions + ${cal.pointer.touch_shift.toFixed(4)})`
)
