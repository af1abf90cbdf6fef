// A known tool's new recordings: how the shipped recipe scores real DELBOT bot circles it did not train on,
// when it trained on other recordings of the same tool (the eval's bot rows hold the whole tool out instead).
// Each real DELBOT bot family's single circles are split into 5 folds by file; a fold's models train on
// everything else but that fold's circles and every DELBOT bot page (a page repeats its setup's circles), and
// score that fold with the committed model's calibration. Same rows, seed and tree shape as `npm run train`.
//   npx bun run ml/experiments/known-tool-recordings.ts
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, type ScoreResult, scoreSessionWith } from '../../src/scoring/service'
import { loadAllReal } from '../data/load'
import { botSources, buildRows, fitEnsemble, heldOutModel, M4_SEED, type Row } from '../training/real'

const FOLDS = 5
/** a file's fold: a string hash, so the split does not depend on the order of the data */
const foldOf = (name: string) => [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % FOLDS

const circles = loadAllReal().filter((s) => s.label === 'bot' && s.unit === 'trajectory')
const families = [...new Set(circles.map((s) => s.family))].sort()
// the DELBOT bot sources hold only their circles here (no pages), in this order
const sources = (await botSources()).map((src) =>
  src.source === 'delbot' ? { ...src, sessions: () => circles.filter((s) => s.family === src.family).map((s) => s.signals) } : src
)
const rows = await buildRows(M4_SEED, sources)
// buildRows appends each DELBOT session's copies one after another, in the sources' order: the k-th row of a
// family belongs to its circle floor(k / copies)
const foldOfRow = new Map<Row, number>()
for (const family of families) {
  const own = circles.filter((s) => s.family === family)
  const famRows = rows.filter((r) => r.family === family)
  const copies = famRows.length / own.length
  for (const [k, r] of famRows.entries()) foldOfRow.set(r, foldOf(own[Math.floor(k / copies)].user))
}

const results = new Map<string, ScoreResult[]>()
const shipped = new Map<string, ScoreResult[]>()
for (let f = 0; f < FOLDS; f++) {
  const keep = (r: Row) => foldOfRow.get(r) !== f
  const model = heldOutModel(
    { pointer: fitEnsemble(rows, 'pointer', keep, M4_SEED), vector: fitEnsemble(rows, 'vector', keep, M4_SEED) },
    { pointer: MODEL.pointer.calibration, vector: MODEL.vector_pointer.calibration },
    MODEL.model_version
  )
  for (const s of circles.filter((c) => foldOf(c.user) === f)) {
    const input = { signals: s.signals, clientFeatures: windowFeatures(s.signals) }
    results.set(s.family, [...(results.get(s.family) ?? []), scoreSessionWith(model, input)])
    shipped.set(s.family, [...(shipped.get(s.family) ?? []), scoreSessionWith(MODEL, input)])
  }
}
const pct = (rs: ScoreResult[], v: string) => `${((100 * rs.filter((r) => r.verdict === v).length) / rs.length).toFixed(1)} %`
console.log(
  `| family | circles | caught, new recordings | suspicious | human_verified | caught by ${MODEL.model_version} (trained on them) |`
)
console.log('|---|---:|---:|---:|---:|---:|')
for (const family of families) {
  const rs = results.get(family) ?? []
  console.log(
    `| ${family} | ${rs.length} | ${pct(rs, 'bot')} | ${pct(rs, 'suspicious')} | ${pct(rs, 'human_verified')} | ${pct(shipped.get(family) ?? [], 'bot')} |`
  )
}
