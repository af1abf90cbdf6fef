// npm run eval — the M4 method measured on people and bots the scoring model
// never saw: every real human scored by the model of the fold without that
// person (group 5-fold: SapiMouse by user, DELBOT by recording setup), every
// bot family by the model trained without that family. Scores go through
// the full service (scoreSessionWith: modality evidence, integrity checks,
// verdict, reasons). Writes the tables into docs/scoring.md between the
// eval markers; `--print` only prints them. Seeded: the same tree gives the
// same tables.
import { readFileSync, writeFileSync } from 'node:fs'
import { windowFeatures } from '../../src/scoring/features'
import type { M4Model } from '../../src/scoring/inference'
import { MODEL, MODEL_VERSION, type ScoreResult, scoreSessionWith, trajectoryFingerprint } from '../../src/scoring/service'
import { MemoryReplayStore, type ReuseJudgement, SHAPE_MATCH_PX, judgeReuse, replayMaterial, shapeDistance } from '../../src/scoring/replay'
import type { Signal } from '../../src/scoring/signals'
import { BOT_FAMILIES } from '../synth/bots'
import { createRng, deriveSeed } from '../synth/prng'
import { type PersonVisit, type RealSession, loadAllReal, loadBrowserVisits, loadPeopleThroughBrowsers } from '../data/load'
import { CAPTURES, type Capture, applyCapture, window } from './capture'
import { replayWithJitter, stitchFromCorpus } from '../generators/stitch'
import { withTremor } from '../generators/tremor'
import { expectedCalibrationError, rocAuc } from './metrics'
import {
  BROWSER_TOOL,
  type Cal,
  type Ensemble,
  HUMAN_FLAG_TARGET,
  type Kind,
  M4_SEED,
  botSources,
  buildRows,
  calibrateForHumans,
  generatedFamilies,
  heldOutModel,
  humanFold,
  trainHeldOut,
} from './real'

const EVAL_SEED = 20261199
const BOTS_PER_FAMILY = 200
const started = performance.now()
const progress = (s: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${s}`)

/** `replayed`: the exact fingerprint seen before; `reused`: the cross-session store's judgement (replay.ts), as ingest passes them */
const score = (model: M4Model, signals: readonly Signal[], replayed = false, reused?: ReuseJudgement): ScoreResult =>
  scoreSessionWith(model, {
    signals,
    clientFeatures: windowFeatures(signals),
    replayed,
    reused: reused && { strokes: reused.strokesReused, typing: reused.typingReused },
  })

// The cross-session store: replay.ts's pure functions and its in-memory store, whose candidate rule is the
// SQL store's (modules/ingest/replay-store.ts). Sessions go in one by one as ingest scores them.
const EVAL_ORG = '00000000-0000-4000-8000-0000000e7a11'
/** sessions in order through one organization's store: each judged against those before it, then stored */
const throughStore = (sessions: readonly (readonly Signal[])[], store = new MemoryReplayStore(), first = 0): ReuseJudgement[] =>
  sessions.map((s, i) => store.judgeAndAdd(EVAL_ORG, `s${first + i}`, first + i, replayMaterial(s)))
const isReused = (j: ReuseJudgement) => j.strokesReused || j.typingReused

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)} %` : '–')
const median = (a: number[]) => {
  const s = [...a].sort((p, q) => p - q)
  return s.length ? s[s.length >> 1] : Number.NaN
}

progress('building the training rows')
const sources = await botSources()
const rows = await buildRows(M4_SEED, sources)
progress(`${rows.length} rows; training the held-out models`)
const held = trainHeldOut(rows, M4_SEED, progress)
const calDetail = { pointer: calibrateForHumans(rows, held, 'pointer'), vector: calibrateForHumans(rows, held, 'vector') }
const cal: Record<Kind, Cal> = {
  pointer: { a: calDetail.pointer.a, b: calDetail.pointer.b, b_touch: calDetail.pointer.b_touch },
  vector: { a: calDetail.vector.a, b: calDetail.vector.b },
}
// nested calibration: the people of fold f are scored with a Platt fit and human shift chosen without them
// (on the other folds' out-of-fold scores), so the human rows below are not met by construction
const nestedDetail = held.humanFold.map((_, f) => ({
  pointer: calibrateForHumans(rows, held, 'pointer', f),
  vector: calibrateForHumans(rows, held, 'vector', f),
}))
const foldModels = held.humanFold.map((e, f) => {
  const d = nestedDetail[f]
  const c: Record<Kind, Cal> = {
    pointer: { a: d.pointer.a, b: d.pointer.b, b_touch: d.pointer.b_touch },
    vector: { a: d.vector.a, b: d.vector.b },
  }
  return heldOutModel(e, c, `fold-${f}`)
})
const familyModel = (family: string): M4Model => {
  const e: Record<Kind, Ensemble> | undefined = held.botFamily.get(family)
  // a family not in training (rule-judged ones): any held-out model will do, it never saw the family
  return heldOutModel(e ?? held.humanFold[0], cal, `lofo-${family}`)
}
const humanModel = (s: RealSession) => foldModels[humanFold(s)]

const out: string[] = []
const line = (s = '') => out.push(s)
type Tally = { n: number; bot: number; suspicious: number; verified: number; insufficient: number; hcs: number[] }
const tally = (results: readonly ScoreResult[]): Tally => ({
  n: results.length,
  bot: results.filter((r) => r.verdict === 'bot').length,
  suspicious: results.filter((r) => r.verdict === 'suspicious').length,
  verified: results.filter((r) => r.verdict === 'human_verified').length,
  insufficient: results.filter((r) => r.verdict === 'insufficient_data').length,
  hcs: results.map((r) => r.hcs),
})

// ---------------------------------------------------------------- real humans
progress('scoring real humans')
const real = loadAllReal()
const humans = real.filter((s) => s.label === 'human')
const humanResults = new Map<RealSession, ScoreResult>()
for (const s of humans) humanResults.set(s, score(humanModel(s), s.signals))
progress('scored real humans as recorded')
// EVAL_DEBUG_FLAGGED=1: which real people are flagged, and why (to study a change, not for the docs)
if (process.env.EVAL_DEBUG_FLAGGED)
  for (const [s, r] of humanResults)
    if (r.verdict === 'bot') console.error(`flagged ${s.family}/${s.unit}/${s.user}: hcs ${r.hcs} ${r.reasons.join(',')}`)

line('### Real humans, scored by models that never saw them')
line()
line(
  "**Real people** (ml/data/real), group 5-fold: SapiMouse by user, DELBOT by recording setup (each setup held out as a whole). **Nested calibration**: each fold's people are scored with the Platt fit and human-protecting shift chosen on the other folds' out-of-fold scores only (a DELBOT setup is a fold of its own, so its shift never saw it; the phone is the only touch setup, so held out it gets the mouse shift). Flagged = verdict `bot` (hcs < 30)."
)
line()
line('| source | device / setup | modality | unit | sessions | flagged (bot) | suspicious | human_verified | insufficient | median hcs |')
line('|---|---|---|---|---:|---:|---:|---:|---:|---:|')
const device: Record<string, string> = {
  S1: 'PC mouse (session 1)',
  S3: 'PC mouse (session 3)',
  human_pc1: 'PC mouse',
  human_fast: 'PC mouse, long recordings',
  human_vm: 'PC inside a VM',
  human_pc2_pad: 'touchpad',
  human_tel: 'phone',
}
const humanRow = (label: string, dev: string, modality: string, unit: string, t: Tally) =>
  line(
    `| ${label} | ${dev} | ${modality} | ${unit} | ${t.n} | ${pct(t.bot, t.n)} | ${pct(t.suspicious, t.n)} | ${pct(t.verified, t.n)} | ${pct(t.insufficient, t.n)} | ${median(t.hcs).toFixed(1)} |`
  )
const groupsOf = (filter: (s: RealSession) => boolean) => humans.filter(filter).map((s) => humanResults.get(s)!)
const sapiAll = groupsOf((s) => s.source === 'sapimouse')
for (const fam of ['S1', 'S3'])
  humanRow('SapiMouse', device[fam], 'mouse', '60 s window', tally(groupsOf((s) => s.source === 'sapimouse' && s.family === fam)))
humanRow('**SapiMouse, all**', 'PC mouse', 'mouse', '60 s window', tally(sapiAll))
// page-visit lengths: sub-windows of each 60 s window
for (const seconds of [3, 5, 10, 30]) {
  const rng = createRng(deriveSeed(EVAL_SEED, 'subwindow', seconds))
  const res = humans.filter((s) => s.source === 'sapimouse').map((s) => score(humanModel(s), window(rng, s.signals, seconds)))
  if (process.env.EVAL_DEBUG_FLAGGED)
    for (const r of res) if (r.verdict === 'bot') console.error(`flagged ${seconds} s window: hcs ${r.hcs} ${r.reasons.join(',')}`)
  humanRow('SapiMouse', 'PC mouse', 'mouse', `${seconds} s window`, tally(res))
  progress(`scored ${seconds} s windows`)
}
for (const fam of ['human_pc1', 'human_fast', 'human_vm', 'human_pc2_pad', 'human_tel']) {
  for (const unit of ['page', 'trajectory'])
    humanRow(
      'DELBOT',
      device[fam],
      fam === 'human_tel' ? 'touch' : 'mouse',
      unit === 'page' ? 'page' : 'one circle',
      tally(groupsOf((s) => s.family === fam && s.unit === unit))
    )
}
const delbotPc = groupsOf((s) => ['human_pc1', 'human_fast', 'human_vm'].includes(s.family))
humanRow('**DELBOT PC, all**', 'pc1 + fast + vm', 'mouse', 'both', tally(delbotPc))

// keyboard-only: generated to the real figures (the figures are real, the sessions are not)
const generated = await generatedFamilies()
const typist = generated.find((g) => g.name === 'typing_real_figures')
let typingFlagged = Number.NaN
progress('typists')
if (typist) {
  const res = Array.from({ length: 1000 }, (_, i) => score(foldModels[0], typist.make(createRng(deriveSeed(EVAL_SEED, 'typist', i)))))
  const t = tally(res)
  typingFlagged = t.bot / t.n
  humanRow('typing generated to the real figures (**synthetic** sessions, real percentiles)', 'keyboard', 'keyboard only', 'visit', t)
}
// people moving the pointer with Mouse Keys: simulated (no recordings), never trained on; the trees call
// them bots, the Mouse Keys floor holds them at suspicious (docs/scoring.md, Method 2)
const mouseKeys = generated.find((g) => g.name === 'mouse_keys')
if (mouseKeys) {
  const res = Array.from({ length: 500 }, (_, i) => score(foldModels[0], mouseKeys.make(createRng(deriveSeed(EVAL_SEED, 'mouse_keys', i)))))
  humanRow(
    'people using Mouse Keys (**simulated** sessions, ml/generators/assistive.ts)',
    'keyboard moving the cursor',
    'mouse',
    'visit',
    tally(res)
  )
}
line()

// ------------------------------------------------------------------- bots
progress('scoring bot families, each with the model trained without it')
line('### Bot families, each held out of training')
line()
line(
  'Each family is scored by a model trained without it (synthetic, generator-library and stitched families: fresh sessions of the eval seed; DELBOT: the real recordings). Caught = verdict `bot`. Families marked *rules* never reach the trees: the keyboard, click and timing rules and the integrity checks judge them. Families marked *never trained on* are in the training of no model: bot tools the trees have never seen, as the service meets a new one. A family that mixes ways of using its tool (`family: part`) is also scored one way at a time, by the same model (those rows are left out of the AUC below). The humans these bots are compared with are the real ones above.'
)
line()
line(
  '| family | origin | sessions | caught (bot) | suspicious | passed (human_verified) | insufficient | median hcs | AUC vs real humans | top reasons |'
)
line('|---|---|---:|---:|---:|---:|---:|---:|---:|---|')
const humanHcs = [...humanResults.values()].map((r) => r.hcs)
const botResultsAll: { family: string; origin: string; results: ScoreResult[] }[] = []
/** `counted`: false for a part of a family already in the table (kept out of the AUC and the count below) */
const botRow = (family: string, origin: string, results: ScoreResult[], counted = true) => {
  if (counted) botResultsAll.push({ family, origin, results })
  // EVAL_DEBUG_FAMILY=<prefix>[,<prefix>…]: each session's verdict and reasons (to study a family, not for the docs)
  if (process.env.EVAL_DEBUG_FAMILY?.split(',').some((prefix) => family.startsWith(prefix)))
    for (const r of results) console.error(`${family}: ${r.verdict} hcs ${r.hcs} ${r.reasons.join(',')}`)
  const t = tally(results)
  const reasons = new Map<string, number>()
  for (const r of results) for (const c of r.reasons) reasons.set(c, (reasons.get(c) ?? 0) + 1)
  const top = [...reasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([c, n]) => `${c} ${Math.round((100 * n) / t.n)}%`)
    .join(', ')
  const auc = rocAuc(humanHcs, t.hcs)
  line(
    `| ${family} | ${origin} | ${t.n} | ${pct(t.bot, t.n)} | ${pct(t.suspicious, t.n)} | ${pct(t.verified, t.n)} | ${pct(t.insufficient, t.n)} | ${median(t.hcs).toFixed(1)} | ${auc.toFixed(3)} | ${top} |`
  )
}
/** a family that mixes ways a tool is used: each way apart too, by the family's model (rows kept out of the AUC) */
const partRows = (family: string, origin: string, model: M4Model) => {
  for (const part of generated.find((g) => g.name === family)?.parts ?? [])
    botRow(
      `${family}: ${part.name}`,
      `${origin}, one part of the row above`,
      Array.from({ length: BOTS_PER_FAMILY }, (_, i) =>
        score(model, part.make(createRng(deriveSeed(EVAL_SEED, `gen:${family}:${part.name}`, i))))
      ),
      false
    )
}
for (const src of sources) {
  const model = familyModel(src.family)
  if (src.source === 'delbot') {
    for (const unit of ['page', 'trajectory']) {
      const res = real.filter((s) => s.family === src.family && s.unit === unit).map((s) => score(model, s.signals))
      if (res.length) botRow(`${src.family} (${unit === 'page' ? 'page' : 'one circle'})`, 'real DELBOT recording', res)
    }
    continue
  }
  if (src.source === 'browser') {
    // each visit scored once; the per-browser rows are parts of the family's row
    const visits = loadBrowserVisits(BROWSER_TOOL)
    const res = visits.map((v) => score(model, v.signals))
    botRow(src.family, 'real browser recording (ml/data/browser)', res)
    for (const browser of [...new Set(visits.map((v) => v.browser))])
      botRow(
        `${src.family}: ${browser}`,
        'real browser recording, one part of the row above',
        res.filter((_, i) => visits[i]!.browser === browser),
        false
      )
    continue
  }
  const sessions = src.sessions(EVAL_SEED).slice(0, BOTS_PER_FAMILY)
  if (src.family === 'stitched_human') {
    // one bot farm: its sessions in order into one organization's store (the first ones cannot be caught this way)
    const judged = throughStore(sessions)
    botRow(
      src.family,
      'generator (ml/generators), trees + cross-session store (the sessions in order, one organization)',
      sessions.map((s, i) => score(model, s, false, judged[i]))
    )
    continue
  }
  botRow(
    src.family,
    src.source === 'synth' ? 'synthetic (ml/synth)' : 'generator (ml/generators)',
    sessions.map((s) => score(model, s))
  )
  partRows(src.family, 'generator (ml/generators)', model)
}
// rule-judged families: the trees never trained on them
for (const family of ['teleport', 'empty'] as const) {
  const res = Array.from({ length: BOTS_PER_FAMILY }, (_, i) =>
    score(familyModel(family), BOT_FAMILIES[family](createRng(deriveSeed(EVAL_SEED, family, i))))
  )
  botRow(family, 'synthetic (ml/synth), *rules*', res)
}
for (const g of generated.filter((g) => g.kind === 'bot' && g.modality === 'keyboard')) {
  const sessions = Array.from({ length: BOTS_PER_FAMILY }, (_, i) => g.make(createRng(deriveSeed(EVAL_SEED, `gen:${g.name}`, i))))
  // a family that is human one session at a time (a replayed real rhythm) can only be caught across sessions:
  // its sessions in order through one organization's store
  const judged = g.crossSessionOnly ? throughStore(sessions) : null
  botRow(
    g.name,
    g.crossSessionOnly
      ? 'generator (ml/generators), *rules* + cross-session store (the sessions in order, one organization)'
      : 'generator (ml/generators), *rules*',
    sessions.map((s, i) => score(familyModel(g.name), s, false, judged?.[i]))
  )
}
// bot tools no model trained on (scored by the first human fold's model, which every trained bot family is in)
for (const g of generated.filter((g) => g.kind === 'bot' && g.untrained)) {
  const sessions = Array.from({ length: BOTS_PER_FAMILY }, (_, i) => g.make(createRng(deriveSeed(EVAL_SEED, `gen:${g.name}`, i))))
  botRow(
    g.name,
    'generator (ml/generators), *never trained on*',
    sessions.map((s) => score(familyModel(g.name), s))
  )
  partRows(g.name, 'generator (ml/generators), *never trained on*', familyModel(g.name))
}
// replays: the trajectory fingerprint of an earlier session in the same organization (ingest's lookup)
{
  const res: ScoreResult[] = []
  // each source is stored first (scored when it arrived), then its replay is judged
  const store = new MemoryReplayStore()
  for (let i = 0; i < BOTS_PER_FAMILY; i++) {
    const rng = createRng(deriveSeed(EVAL_SEED, 'replay', i))
    const { signals, source } = (await import('../synth/bots')).replaySession(rng)
    const fp = trajectoryFingerprint(source)
    store.add(EVAL_ORG, `source${i}`, 2 * i, replayMaterial(source))
    const reused = store.judgeAndAdd(EVAL_ORG, `replay${i}`, 2 * i + 1, replayMaterial(signals))
    res.push(score(familyModel('replay'), signals, fp !== null && fp === trajectoryFingerprint(signals), reused))
  }
  botRow('replay (of synthetic humans)', 'synthetic (ml/synth), fingerprint + cross-session store', res)
}
try {
  const gen = (await import('../generators/index')) as unknown as {
    replayWithJitter?: (rng: ReturnType<typeof createRng>, s: Signal[]) => Signal[]
  }
  if (gen.replayWithJitter) {
    const sapi = humans.filter((s) => s.source === 'sapimouse')
    const res: ScoreResult[] = []
    // every real window is in the organization's store first (its visitor came before the bot), then the replays come
    const store = new MemoryReplayStore()
    for (const [k, s] of sapi.entries()) store.add(EVAL_ORG, `real${k}`, k, replayMaterial(s.signals))
    for (let i = 0; i < BOTS_PER_FAMILY; i++) {
      const rng = createRng(deriveSeed(EVAL_SEED, 'replay-real', i))
      const src = sapi[rng.int(0, sapi.length - 1)]
      const signals = gen.replayWithJitter(rng, src.signals)
      const fp = trajectoryFingerprint(src.signals)
      const reused = store.judgeAndAdd(EVAL_ORG, `replay${i}`, sapi.length + i, replayMaterial(signals))
      res.push(score(humanModel(src), signals, fp !== null && fp === trajectoryFingerprint(signals), reused))
    }
    botRow('replayed real human, with jitter', 'generator (ml/generators), fingerprint + trees + cross-session store', res)
  }
} catch {}
line()
const trained = botResultsAll.filter((b) => !b.origin.includes('*rules*'))
const allBots = botResultsAll.flatMap((b) => b.results.map((r) => r.hcs))
line(
  `AUC, real humans (all sessions above) vs every bot session above: **${rocAuc(humanHcs, allBots).toFixed(4)}**; vs the real DELBOT bots only: ${rocAuc(
    humanHcs,
    botResultsAll.filter((b) => b.origin.includes('DELBOT')).flatMap((b) => b.results.map((r) => r.hcs))
  ).toFixed(4)}. Families with trees: ${trained.length}.`
)
line()

// the committed model on fresh sessions of the library families it was trained on: what the service answers a
// tool it knows (the held-out rows above answer a tool it does not)
progress('the shipped model on the library families it was trained on')
line('### Library families the shipped model was trained on')
line()
line(
  `The committed model (\`${MODEL_VERSION}\`, trained on every family) scoring fresh sessions of each generator family in its training (a seed no training row came from). Held out of training, the same families are the rows above; \`family: part\` rows score one way of using the tool. (After a change to the training recipe, \`npm run train\` first: this table reads the committed file.)`
)
line()
line('| family | sessions | caught (bot) | suspicious | passed (human_verified) | median hcs |')
line('|---|---:|---:|---:|---:|---:|')
for (const g of generated.filter((g) => g.kind === 'bot' && g.modality !== 'keyboard' && !g.untrained && !g.crossSessionOnly)) {
  // the family, then each of its parts: the seed key is the row's label without the space
  const entries = [
    { label: g.name, key: g.name, make: g.make },
    ...(g.parts ?? []).map((p) => ({ label: `${g.name}: ${p.name}`, key: `${g.name}:${p.name}`, make: p.make })),
  ]
  for (const { label, key, make } of entries) {
    const t = tally(
      Array.from({ length: BOTS_PER_FAMILY }, (_, i) => score(MODEL, make(createRng(deriveSeed(EVAL_SEED, `shipped:${key}`, i)))))
    )
    line(`| ${label} | ${t.n} | ${pct(t.bot, t.n)} | ${pct(t.suspicious, t.n)} | ${pct(t.verified, t.n)} | ${median(t.hcs).toFixed(1)} |`)
  }
}
line()

// ------------------------------------------------------- reused material
progress('reused human material across sessions')
line('### Reused human material across sessions')
line()
line(
  `Bots made of real human movement are human one session at a time; the cross-session store (\`src/scoring/replay.ts\`, the same functions and candidate rule as ingest's SQL store) finds the same strokes (≤ ${SHAPE_MATCH_PX} px RMS, any mirror) or the same typing rhythm in earlier sessions of one organization. Judged reused = \`replayed_strokes\` or \`replayed_typing_rhythm\` (hcs capped at 10, so verdict \`bot\`).`
)
line()
{
  // real people, all in one organization's store in a random order. DELBOT page windows are left out: they
  // are the circle files of their setup joined (checked below), so each circle is in once, as its file.
  const pool = humans.filter((s) => !(s.source === 'delbot' && s.unit === 'page'))
  const orderRng = createRng(deriveSeed(EVAL_SEED, 'reuse-order', 0))
  const shuffled = pool
    .map((s) => ({ s, r: orderRng.next() }))
    .sort((a, b) => a.r - b.r)
    .map((x) => x.s)
  const t0 = performance.now()
  const judged = throughStore(shuffled.map((s) => s.signals))
  const perSession = (performance.now() - t0) / shuffled.length
  const withMaterial = shuffled.filter((s) => {
    const m = replayMaterial(s.signals)
    return m.mouse.length + m.touch.length > 0
  }).length
  const misses = judged
    .map((j) => j.nearestMiss)
    .filter((d) => Number.isFinite(d))
    .sort((a, b) => a - b)
  const bySource = (src: string) => shuffled.map((s, i) => ({ s, j: judged[i]! })).filter((x) => x.s.source === src)
  line('**Real people** (ml/data/real), every session in one organization, random order:')
  line()
  line(
    '| people | sessions | with a distinctive stroke | judged reused | sessions with ≥ 1 stroke matched | closest non-matching strokes (px) |'
  )
  line('|---|---:|---:|---:|---:|---|')
  for (const [label, src] of [
    ['SapiMouse, 81 people, 60 s windows', 'sapimouse'],
    ['DELBOT humans, one circle each (5 setups)', 'delbot'],
  ] as const) {
    const rows = bySource(src)
    const m = rows.map((x) => x.j.nearestMiss).filter((d) => Number.isFinite(d))
    line(
      `| ${label} | ${rows.length} | ${rows.filter((x) => x.j.strokes > 0).length} | ${rows.filter((x) => isReused(x.j)).length} | ${rows.filter((x) => x.j.strokesMatched > 0).length} | ${m
        .sort((a, b) => a - b)
        .slice(0, 3)
        .map((d) => d.toFixed(1))
        .join(', ')} |`
    )
  }
  line(
    `| **all** | ${shuffled.length} | ${withMaterial} | **${judged.filter(isReused).length}** | ${judged.filter((j) => j.strokesMatched > 0).length} | ${misses
      .slice(0, 5)
      .map((d) => d.toFixed(1))
      .join(', ')} |`
  )
  line()
  {
    // every pair of sessions, not only those the keys bring together: each session judged against all the others
    const materials = shuffled.map((s, i) => ({ id: `s${i}`, material: replayMaterial(s.signals) }))
    let closest = Number.POSITIVE_INFINITY
    let within = 0
    for (const [i, m] of materials.entries()) {
      const j = judgeReuse(EVAL_ORG, m.material, [...materials.slice(0, i), ...materials.slice(i + 1)])
      closest = Math.min(closest, j.nearestMiss)
      within += j.strokesMatched
    }
    line(
      `The closest non-matching strokes above are among the candidates the keys found. Every pair of the ${shuffled.length} sessions compared instead (exhaustively): strokes within ${SHAPE_MATCH_PX} px of a stroke of another session: **${within}**; the closest two strokes of different sessions are ${closest.toFixed(1)} px apart.`
    )
    line()
  }
  // why no same-user pair had to be excluded, and why DELBOT pages were
  let sameUser = Number.POSITIVE_INFINITY
  const sapiUsers = new Map<string, RealSession[]>()
  for (const s of humans.filter((x) => x.source === 'sapimouse')) sapiUsers.set(s.user, [...(sapiUsers.get(s.user) ?? []), s])
  for (const windows of sapiUsers.values()) {
    const shapes = windows.map((w) => replayMaterial(w.signals).mouse)
    for (let a = 0; a < shapes.length; a++)
      for (let b = a + 1; b < shapes.length; b++)
        for (const p of shapes[a]!) for (const q of shapes[b]!) sameUser = Math.min(sameUser, shapeDistance(p, q))
  }
  let pageStrokes = 0
  let pageCopies = 0
  for (const page of humans.filter((x) => x.source === 'delbot' && x.unit === 'page')) {
    const circles = humans
      .filter((x) => x.family === page.family && x.unit === 'trajectory')
      .flatMap((x) => {
        const m = replayMaterial(x.signals)
        return [...m.mouse, ...m.touch]
      })
    const m = replayMaterial(page.signals)
    for (const p of [...m.mouse, ...m.touch]) {
      pageStrokes++
      if (circles.some((q) => shapeDistance(p, q) <= 0.5)) pageCopies++
    }
  }
  line(
    `No pair had to be excluded: the windows of one SapiMouse user do not overlap (their closest strokes across windows are ${sameUser.toFixed(1)} px apart), and pairs of one person count as any other pair (the DELBOT circles of one setup are one person drawing the same circle again and again). Left out: the ${humans.filter((x) => x.source === 'delbot' && x.unit === 'page').length} DELBOT page windows, because ${pageCopies} of their ${pageStrokes} distinctive strokes are the very circles of their setup's files (within 0.5 px): the same recording twice, which the store rightly calls reused. The in-memory store took ${perSession.toFixed(1)} ms per session here (judge and store).`
  )
  line()
  // typists: synthetic sessions to the real figures (no real typing recordings), all in one organization
  if (typist) {
    const sessions = Array.from({ length: 1000 }, (_, i) => typist.make(createRng(deriveSeed(EVAL_SEED, 'typist', i))))
    const tj = throughStore(sessions)
    const best = Math.max(...tj.map((j) => j.latenciesMatched))
    line(
      `Typing: the 1,000 **synthetic** typists generated to the real figures (real typing recordings are not in ml/data), all in one organization: judged reused **${tj.filter(isReused).length}**; the best alignment of any two of them matched ${best} latencies within 8 ms (the rule needs 24 *and* 70 % of the compared ones; ${tj.filter((j) => j.latenciesMatched >= 24).length} sessions reached 24 matched latencies at ≤ ${Math.max(
        0,
        ...tj.filter((j) => j.latenciesMatched >= 24).map((j) => Math.round((100 * j.latenciesMatched) / j.latenciesCompared))
      )} %).`
    )
    line()
  }
}
{
  line(
    '**Bots made of recorded human material**, each a stream of sessions into one organization, judged in order. "1–10" = the first ten sessions of the stream, and so on: the first sessions of a fresh corpus have nothing to be found in.'
  )
  line()
  line('| stream | material | sessions | judged reused: 1–10 | 11–50 | 51–200 | all | verdict bot, all |')
  line('|---|---|---:|---:|---:|---:|---:|---:|')
  const streamRow = (name: string, material: string, sessions: Signal[][], model: M4Model, store = new MemoryReplayStore(), first = 0) => {
    const judged = throughStore(sessions, store, first)
    const share = (from: number, to: number) => {
      const part = judged.slice(from, to)
      return part.length ? pct(part.filter(isReused).length, part.length) : '–'
    }
    const bots = sessions.filter((s, i) => score(model, s, false, judged[i]).verdict === 'bot').length
    line(
      `| ${name} | ${material} | ${sessions.length} | ${share(0, 10)} | ${share(10, 50)} | ${share(50, 200)} | ${pct(judged.filter(isReused).length, judged.length)} | ${pct(bots, sessions.length)} |`
    )
  }
  const corpus = humans.filter((s) => s.source === 'sapimouse' && humanFold(s) === 0)
  const farm = Array.from({ length: 200 }, (_, i) => stitchFromCorpus(createRng(deriveSeed(EVAL_SEED, 'stitch-farm', i)), corpus))
  const people = new Set(corpus.map((s) => s.user)).size
  const stitchModel = familyModel('stitched_human')
  streamRow(
    'stitched strokes, fresh corpus',
    `SapiMouse fold 0: ${people} people, ${corpus.length} windows, never in the organization`,
    farm,
    stitchModel
  )
  {
    // the corpus was recorded on this organization's own pages: its people's sessions are in the store first
    const store = new MemoryReplayStore()
    const seeded = throughStore(
      corpus.map((s) => s.signals),
      store
    )
    streamRow(
      'stitched strokes, corpus recorded on this site',
      `the same corpus, its ${seeded.length} real sessions stored first`,
      farm,
      stitchModel,
      store,
      seeded.length
    )
  }
  const sapi = humans.filter((s) => s.source === 'sapimouse')
  const replays = Array.from({ length: 200 }, (_, i) => {
    const rng = createRng(deriveSeed(EVAL_SEED, 'replay-stream', i))
    return replayWithJitter(rng, sapi[rng.int(0, sapi.length - 1)]!.signals)
  })
  streamRow(
    'replayed real windows, with jitter, sources not stored',
    `SapiMouse windows picked at random (${sapi.length})`,
    replays,
    familyModel('stitched_human')
  )
  {
    const store = new MemoryReplayStore()
    for (const [k, s] of sapi.entries()) store.add(EVAL_ORG, `real${k}`, k, replayMaterial(s.signals))
    streamRow(
      'replayed real windows, with jitter, sources stored first',
      `the same, every window stored first`,
      replays,
      familyModel('stitched_human'),
      store,
      sapi.length
    )
  }
  const rhythm = generated.find((g) => g.name === 'typing_replayed_rhythm')
  if (rhythm) {
    const plain = Array.from({ length: 200 }, (_, i) => rhythm.make(createRng(deriveSeed(EVAL_SEED, 'rhythm-stream', i))))
    streamRow('typing_replayed_rhythm', 'five recorded rhythms (synthetic typists), replayed to the ms', plain, familyModel(rhythm.name))
    const jittered = plain.map((s, i) => {
      const rng = createRng(deriveSeed(EVAL_SEED, 'rhythm-jitter', i))
      const sd = rng.uniform(0.5, 3)
      return s.map((e) => ({ ...e, t: Math.round(e.t + rng.normal(0, sd)) })).sort((a, b) => a.t - b.t)
    })
    streamRow(
      'typing_replayed_rhythm, with jitter',
      'the same, every key event moved by N(0, 0.5–3 ms)',
      jittered,
      familyModel(rhythm.name)
    )
  }
  line()
}

// ----------------------------------------------------------- calibration
progress('calibration')
line('### Calibration on real people')
line()
{
  // held-out m3_score of every real human (label 1) and every real DELBOT bot (label 0), each side weighted to half
  const h = [...humanResults.values()].map((r) => r.m3_score)
  const b = botResultsAll.filter((x) => x.origin.includes('DELBOT')).flatMap((x) => x.results.map((r) => r.m3_score))
  const reps = Math.max(1, Math.round(h.length / b.length))
  const probs = [...h, ...Array.from({ length: reps }, () => b).flat()]
  const labels = [...h.map(() => 1), ...Array.from({ length: reps * b.length }, () => 0)]
  line(
    `Platt scaling of the pointer trees fitted on held-out margins: a = ${cal.pointer.a.toFixed(3)}, b = ${calDetail.pointer.platt_b.toFixed(3)}; then the intercept raised by **${calDetail.pointer.human_shift.toFixed(3)}** for mouse sessions and **${calDetail.pointer.touch_shift.toFixed(3)}** for touch sessions (phones) so that at most ${HUMAN_FLAG_TARGET.sapimouse * 100} % of held-out SapiMouse users and ${HUMAN_FLAG_TARGET.delbot * 100} % of each held-out DELBOT setup fall below hcs 30 on pointer evidence (client-vector trees: a = ${cal.vector.a.toFixed(3)}, b = ${calDetail.vector.platt_b.toFixed(3)} + ${calDetail.vector.human_shift.toFixed(3)}). Shift each group needed (pointer): ${Object.entries(
      calDetail.pointer.shift_needed_by_group
    )
      .map(([g, v]) => `${g} ${v.toFixed(2)}`)
      .join(
        ', '
      )}. That is the shipped model's calibration (all folds). The human rows above are scored **nested**: fold f's people with the calibration chosen without them — pointer intercept (mouse / touch) per outer fold: ${nestedDetail
      .map((d, f) => `fold ${f}: ${d.pointer.b.toFixed(3)} / ${d.pointer.b_touch.toFixed(3)}`)
      .join(
        '; '
      )}. The shift moves m3_score toward human for everyone, which the bot rows pay for; the bot rows use the shipped calibration.`
  )
  line()
  line(`| measured on held-out sessions | value |`)
  line(`|---|---:|`)
  line(
    `| expected calibration error, real humans + real DELBOT bots (balanced, 10 bins) | ${expectedCalibrationError(probs, labels).toFixed(4)} |`
  )
  line(
    `| mean m3_score of real humans (ideal: share of them that are human = 1) | ${(h.reduce((a, v) => a + v, 0) / h.length).toFixed(4)} |`
  )
  line(`| real humans with m3_score < 0.30 (flagged) | ${pct(h.filter((v) => v < 0.3).length, h.length)} |`)
  line(`| real DELBOT bots with m3_score ≥ 0.70 (verified) | ${pct(b.filter((v) => v >= 0.7).length, b.length)} |`)
}
line()

// --------------------------------------------------------------- capture
progress('capture ablation')
line('### Capture differences, real humans')
line()
line(
  'The same **real** sessions (held-out models as above) re-captured: optional fields stripped, timestamps on coarser timers, pointer moves at other rates, a page zoomed to 80, 150 or 200 % (or a display scaled so: the same hand, in CSS px; not trained on). "changed" = verdict class differs from the recording as it is.'
)
line()
line('| capture | SapiMouse flagged | SapiMouse suspicious | DELBOT humans flagged | DELBOT humans suspicious | verdict changed |')
line('|---|---:|---:|---:|---:|---:|')
for (const c of CAPTURES as readonly Capture[]) {
  let sf = 0
  let ss = 0
  let df = 0
  let ds = 0
  let changed = 0
  let ns = 0
  let nd = 0
  for (const s of humans) {
    const base = humanResults.get(s)!
    const r = c === 'as_recorded' ? base : score(humanModel(s), applyCapture(s.signals, c))
    if (r.verdict !== base.verdict) changed++
    if (s.source === 'sapimouse') {
      ns++
      if (r.verdict === 'bot') sf++
      if (r.verdict === 'suspicious') ss++
    } else {
      nd++
      if (r.verdict === 'bot') df++
      if (r.verdict === 'suspicious') ds++
    }
  }
  line(`| ${c} | ${pct(sf, ns)} | ${pct(ss, ns)} | ${pct(df, nd)} | ${pct(ds, nd)} | ${pct(changed, humans.length)} |`)
}
line()

// ------------------------------------------------------------------ real browsers
progress('people through real browsers')
line('### Real people through real browsers')
line()
line(
  'SapiMouse windows (10 s; also 60 s, for the two engines that pass a fast mouse\'s reports on while idle) played by the X server (XTest, the path a mouse takes to every window on a display) into headed browsers on the demo page, what the SDK stored from each (`ml/data/browser/people.jsonl.gz`, `ml/experiments/people-through-browsers.ts`), against the same window as SapiMouse recorded it; **real** people, each scored by the held-out model of their fold (as above). "at the recorded moves": the recording as its own browser delivered it (about 60 a second), so the new browser stamps, groups or drops them; "a 500 Hz mouse": the window resampled to 500 moves a second first (a spline through the recorded ones), so each engine\'s own coalescing decides what the page sees. "changed" = verdict class differs from the recording.'
)
line()
line(
  '| browser | mouse | window | windows | recorded: flagged / suspicious | delivered: flagged / suspicious / verified / insufficient | verdict changed | median hcs, recorded → delivered | moves, recorded → delivered (median) |'
)
line('|---|---|---|---:|---|---|---:|---|---|')
{
  const people = loadPeopleThroughBrowsers()
  const sessionOf = new Map<string, RealSession>()
  for (const s of humans) if (s.source === 'sapimouse' && !sessionOf.has(s.user)) sessionOf.set(s.user, s)
  const groups = new Map<string, PersonVisit[]>()
  for (const v of people) {
    const key = `${v.browser}\u0000${v.rate}\u0000${v.seconds}`
    groups.set(key, [...(groups.get(key) ?? []), v])
  }
  const moves = (signals: readonly Signal[]) => signals.filter((x) => x.k === 'mm').length
  for (const [key, visits] of groups) {
    const [browser, rate, seconds] = key.split('\u0000')
    const before: ScoreResult[] = []
    const after: ScoreResult[] = []
    for (const v of visits) {
      const owner = sessionOf.get(v.user)
      if (!owner) throw new Error(`people.jsonl.gz: no SapiMouse session of ${v.user}`)
      before.push(score(humanModel(owner), v.recorded))
      after.push(score(humanModel(owner), v.signals))
    }
    const b = tally(before)
    const a = tally(after)
    const changed = before.filter((r, i) => r.verdict !== after[i]!.verdict).length
    line(
      `| ${browser} | ${Number(rate) ? `a ${rate} Hz mouse` : 'at the recorded moves'} | ${seconds} s | ${visits.length} | ${pct(b.bot, b.n)} / ${pct(b.suspicious, b.n)} | ${pct(a.bot, a.n)} / ${pct(a.suspicious, a.n)} / ${pct(a.verified, a.n)} / ${pct(a.insufficient, a.n)} | ${pct(changed, visits.length)} | ${median(b.hcs).toFixed(1)} → ${median(a.hcs).toFixed(1)} | ${median(visits.map((v) => moves(v.recorded)))} → ${median(visits.map((v) => moves(v.signals)))} |`
    )
  }
}
line()

// ------------------------------------------------------------------ tremor
progress('tremor')
line('### People with a hand tremor (simulated on real recordings)')
line()
line(
  "The same **real** mouse sessions (held-out models as above; DELBOT: the mouse setups, pages and circles) with a tremor laid over every move (`ml/generators/tremor.ts`: an oscillation sampled at the recording's own times, its frequency drifting ±10 %, its size swelling and fading, each axis its own size and phase). A model of a tremor, not recordings of people with one: the rows measure how the scorer treats such an oscillation, not how many people with a tremor it flags."
)
line()
line('| tremor (peak px, Hz) | SapiMouse flagged | SapiMouse suspicious | DELBOT mouse flagged | DELBOT mouse suspicious |')
line('|---|---:|---:|---:|---:|')
for (const [amplitudePx, hz] of [
  [1, 8],
  [2, 5],
  [2, 8],
  [2, 11],
  [4, 5],
  [4, 8],
  [4, 11],
] as const) {
  const sapi: ScoreResult[] = []
  const delbot: ScoreResult[] = []
  for (const [i, s] of humans.entries()) {
    if (s.family === 'human_tel') continue
    const r = score(
      humanModel(s),
      withTremor(createRng(deriveSeed(EVAL_SEED, `tremor:${amplitudePx}:${hz}`, i)), s.signals, { amplitudePx, hz })
    )
    ;(s.source === 'sapimouse' ? sapi : delbot).push(r)
  }
  const a = tally(sapi)
  const b = tally(delbot)
  line(`| ${amplitudePx} px, ${hz} Hz | ${pct(a.bot, a.n)} | ${pct(a.suspicious, a.n)} | ${pct(b.bot, b.n)} | ${pct(b.suspicious, b.n)} |`)
}
line()

// -------------------------------------------------------------- modalities
progress('modalities')
line('### Modalities: adding a human modality never lowers the score')
line()
if (typist) {
  let lower = 0
  let n = 0
  const before: ScoreResult[] = []
  const after: ScoreResult[] = []
  for (const [i, s] of humans.filter((s) => s.source === 'sapimouse').entries()) {
    const typing = typist.make(createRng(deriveSeed(EVAL_SEED, 'mix', i)))
    const end = s.signals[s.signals.length - 1].t + 500
    const mixed = [...s.signals, ...typing.map((k) => ({ ...k, t: k.t + end }))]
    const a = score(humanModel(s), s.signals)
    const b = score(humanModel(s), mixed)
    before.push(a)
    after.push(b)
    n++
    if (b.hcs < a.hcs) lower++
  }
  const ta = tally(before)
  const tb = tally(after)
  line(
    `Real SapiMouse windows (mouse only) vs the same windows followed by a generated real-figures typist: flagged ${pct(ta.bot, ta.n)} → ${pct(tb.bot, tb.n)}, human_verified ${pct(ta.verified, ta.n)} → ${pct(tb.verified, tb.n)}; hcs lower with the keys added: ${lower} of ${n}.`
  )
}
line()
line(
  `(eval: ${((performance.now() - started) / 1000).toFixed(0)} s; SapiMouse flagged ${pct(tally(sapiAll).bot, sapiAll.length)}, typing flagged ${(typingFlagged * 100).toFixed(1)} %)`
)

const text = out.join('\n')
if (process.argv.includes('--print')) console.log(text)
else {
  const docs = new URL('../../docs/scoring.md', import.meta.url)
  const md = readFileSync(docs, 'utf8')
  const begin = '<!-- eval:begin (npm run eval writes this part) -->'
  const end = '<!-- eval:end -->'
  const i = md.indexOf(begin)
  const j = md.indexOf(end)
  if (i < 0 || j < i) {
    console.log(text)
    console.error(`docs/scoring.md has no ${begin} … ${end} markers; printed instead`)
  } else {
    writeFileSync(docs, `${md.slice(0, i + begin.length)}\n${text}\n${md.slice(j)}`)
    console.error('docs/scoring.md updated')
  }
}
