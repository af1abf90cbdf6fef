// Per-stroke evidence, accumulated over a session, against the session trees (docs/scoring.md, What is
// left: "per-stroke accumulated evidence"). Not part of `npm run eval`: a measurement.
//
//   npx bun ml/experiments/stroke-evidence.ts            (STROKE_FAMILIES=a,b,… to hold out other families)
//
// The training rows of ml/training/real.ts (buildRows: real people with capture augmentation and their
// contrastive negatives, every bot source), each with its session vector and its scored strokes' vectors.
// Two models on the same rows, the same hold-outs, before any calibration: the session trees (fitEnsemble)
// and the stroke trees (fitStrokes); views: each alone (the strokes' mean margin) and their sum as the
// model adds them. Written before the stroke trees were in the model (m4-2026.11.29), when it read every
// counted stroke (≤ 400) with its own fit and its own copy of the rows; it now reads what the model reads,
// from the same rows. Real humans are scored by the models of their held-out fold, each bot family by
// models trained without it; the tools no model trains on by the first fold's models. Reported per family:
// AUC against the held-out real humans and the share caught where 1 % and 5 % of those humans would be flagged.
import { type StrokeTrees, strokeShare, treeMargin } from '../../src/scoring/inference'
import { sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'
import { createRng, deriveSeed } from '../synth/prng'
import { rocAuc, tprAtFpr } from '../training/metrics'
import {
  botSources,
  buildRows,
  FOLDS,
  fitEnsemble,
  fitStrokes,
  generatedFamilies,
  HUMAN_FLAG_TARGET,
  M4_SEED,
  type Row,
  STROKE_CAP,
  STROKE_WEIGHT,
} from '../training/real'

const rowOf = (signals: readonly Signal[], r: Omit<Row, 'pointer' | 'vector' | 'strokes' | 'counted'>): Row => {
  const f = sessionFeatures(signals)
  return { ...r, pointer: f.pointer, vector: null, strokes: f.pointerStrokes, counted: f.strokes }
}

// the training rows themselves (M4_ROWS_SALT draws others)
const rows: Row[] = await buildRows(M4_SEED, await botSources())
// the tools no model trains on, scored as the eval scores them
const untrained = new Map<string, Row[]>()
for (const g of (await generatedFamilies()).filter((g) => g.kind === 'bot' && g.untrained)) {
  untrained.set(
    g.name,
    Array.from({ length: 200 }, (_, i) =>
      rowOf(g.make(createRng(deriveSeed(20261199, `gen:${g.name}`, i))), { human: 0, family: g.name, source: 'generator', fold: -1 })
    )
  )
}
console.error(`${rows.length} rows, ${rows.reduce((a, r) => a + r.strokes.length, 0)} strokes`)

type Models = { session: ReturnType<typeof fitEnsemble>; stroke: StrokeTrees }
const fit = (keep: (r: Row) => boolean, seed: number): Models => ({
  session: fitEnsemble(rows, 'pointer', keep, seed),
  stroke: fitStrokes(rows, keep, seed),
})

/** the session margin and each stroke's margin; null without a stroke */
type Scored = { session: number; strokes: number[]; counted: number }
function score(m: Models, r: Row): Scored | null {
  if (!r.pointer || !r.strokes.length) return null
  return { session: treeMargin(m.session, r.pointer), strokes: r.strokes.map((s) => treeMargin(m.stroke, s)), counted: r.counted }
}
const mean = (a: readonly number[]) => a.reduce((x, y) => x + y, 0) / a.length

const families = (
  process.env.STROKE_FAMILIES ??
  'bot_gan,bot_pyhm,bot_pynput,bezier_minjerk,windmouse_land,ghost_cursor_playwright,ulixee_hero,browser_humanizer,natural_mouse_motion'
)
  .split(',')
  .filter(Boolean)
const t0 = performance.now()
const foldModels: Models[] = []
for (let f = 0; f < FOLDS; f++) {
  foldModels.push(fit((r) => r.fold !== f, M4_SEED))
  console.error(`fold ${f} ${((performance.now() - t0) / 1000).toFixed(0)} s`)
}
const humans: Scored[] = []
const humanGroup: string[] = []
for (const r of rows)
  if (r.human) {
    const s = score(foldModels[r.fold], r)
    if (s) {
      humans.push(s)
      humanGroup.push(r.family)
    }
  }
// higher = more human
const views: [string, (v: Scored) => number][] = [
  ['session trees', (v) => v.session],
  ['stroke trees, mean', (v) => mean(v.strokes)],
  // as the model adds them (inference.ts, strokeTerm)
  [
    'session + stroke mean × 0.5·√min(strokes, 16)',
    (v) => v.session + strokeShare({ weight: STROKE_WEIGHT, cap: STROKE_CAP }, v.counted, mean(v.strokes)),
  ],
]
/**
 * The line the shipped model's human shift draws, without its floor: the highest line under which no
 * group of held-out people has more than its HUMAN_FLAG_TARGET share (SapiMouse 1 %, each DELBOT setup 4 %).
 */
function groupSafeLine(h: readonly number[]): number {
  let line = Number.POSITIVE_INFINITY
  for (const g of new Set(humanGroup)) {
    const zs = h.filter((_, i) => humanGroup[i] === g).sort((a, b) => a - b)
    const allowed = Math.floor((g === 'sapimouse' ? HUMAN_FLAG_TARGET.sapimouse : HUMAN_FLAG_TARGET.delbot) * zs.length)
    line = Math.min(line, zs[allowed])
  }
  return line
}
const lines = views.map(([, f]) => groupSafeLine(humans.map(f)))
function report(family: string, bots: Scored[]) {
  // a pointer sampled ≥ 50 ms apart gives the stroke trees nothing (pyautogui's 50 ms sleeps): no row to show
  if (!bots.length) return console.log(`| ${family} | 0 | no session with scored strokes (a sparse pointer) |`)
  const cells = views.map(([, f], v) => {
    const h = humans.map(f)
    const b = bots.map(f)
    const safe = b.filter((x) => x < lines[v]).length / b.length
    return `${rocAuc(h, b).toFixed(3)} · ${(100 * tprAtFpr(h, b, 0.01)).toFixed(1)} / ${(100 * tprAtFpr(h, b, 0.05)).toFixed(1)} · **${(100 * safe).toFixed(1)}** %`
  })
  console.log(`| ${family} | ${bots.length} | ${cells.join(' | ')} |`)
}
// where each view's 1 % line falls among the people: the share of each group under it
{
  const groups = [...new Set(humanGroup)].sort()
  console.log(`\n| view | ${groups.map((g) => `${g} (${humanGroup.filter((x) => x === g).length})`).join(' | ')} |`)
  console.log(`|---|${groups.map(() => '---:|').join('')}`)
  for (const [name, f] of views) {
    const h = humans.map(f)
    const line = [...h].sort((a, b) => a - b)[Math.floor(0.01 * h.length)]
    const cells = groups.map((g) => {
      const idx = humanGroup.flatMap((x, i) => (x === g ? [i] : []))
      return `${((100 * idx.filter((i) => h[i] < line).length) / idx.length).toFixed(1)} %`
    })
    console.log(`| ${name} | ${cells.join(' | ')} |`)
  }
  console.log('')
}
console.log(
  `| family | sessions | ${views.map(([n]) => `${n}: AUC · caught at 1 % / 5 % of people · at the group-safe line`).join(' | ')} |`
)
console.log(`|---|---:|${views.map(() => '---|').join('')}`)
for (const family of families) {
  const m = fit((r) => r.human === 1 || r.family !== family, M4_SEED)
  const bots = rows
    .filter((r) => !r.human && r.family === family)
    .map((r) => score(m, r))
    .filter((s): s is Scored => s !== null)
  report(family, bots)
}
for (const [family, rs] of untrained)
  report(
    `${family} (never trained on)`,
    rs.map((r) => score(foldModels[0], r)).filter((s): s is Scored => s !== null)
  )
console.error(`humans: ${humans.length} rows; ${((performance.now() - t0) / 1000).toFixed(0)} s`)
