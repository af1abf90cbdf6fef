// npm run eval — leave-one-bot-family-out evaluation on a fresh synthetic
// data set (a seed the shipped model never saw), plus the shipped model's
// numbers on the same data. Each model is measured twice: its m3_score on the
// feature vectors, and hcs from the full pipeline (scoreSession with that
// model, integrity checks and ingest's replay lookup) over one organization's
// stream of sessions (training/stream.ts). Prints markdown for docs/scoring.md.
import type { M3Model } from '../../src/scoring/inference'
import { humanProbability } from '../../src/scoring/inference'
import { M3_MODEL as shipped, trajectoryFingerprint } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { BOT_FAMILY_NAMES, replaySession } from '../synth/bots'
import { createRng, deriveSeed } from '../synth/prng'
import { brier, expectedCalibrationError, rocAuc, tprAtFpr } from './metrics'
import { DATASET_SIZE, EVAL_SEED, type Family, type Sample, buildDataset, sessionFor, splitOf, trainModel } from './pipeline'
import { type StreamEntry, type StreamSession, scoreStream, streamEvidence } from './stream'

const fmt = (v: number, d = 4) => v.toFixed(d)
const pct = (n: number, of: number) => `${fmt((n / of) * 100, 2)}%`

function metrics(model: M3Model, humans: readonly Sample[], bots: readonly Sample[]) {
  const h = humans.map((s) => humanProbability(model, s.features))
  const b = bots.map((s) => humanProbability(model, s.features))
  const probs = [...h, ...b]
  const labels = [...h.map(() => 1), ...b.map(() => 0)]
  return { auc: rocAuc(h, b), tpr: tprAtFpr(h, b, 0.01), brier: brier(probs, labels), ece: expectedCalibrationError(probs, labels) }
}

/** one session of the org stream; `counted: false` marks the human session a replay `i` was recorded from (in the stream, in no metric) */
type Slot = { family: Family; i: number; counted: boolean }

/** hcs / 100 from the full pipeline for the counted humans and the chosen bots */
function pipelineMetrics(model: M3Model, slots: readonly Slot[], entries: readonly StreamEntry[], isBot: (s: Slot) => boolean) {
  const pick = (keep: (s: Slot) => boolean) => entries.filter((_, k) => keep(slots[k]))
  const humans = scoreStream(model, pick((s) => s.counted && s.family === 'human')).map((r) => r.hcs)
  const bots = scoreStream(model, pick((s) => s.counted && isBot(s))).map((r) => r.hcs)
  const h = humans.map((v) => v / 100)
  const b = bots.map((v) => v / 100)
  return { auc: rocAuc(h, b), tpr: tprAtFpr(h, b, 0.01), humansBelow30: humans.filter((v) => v < 30).length, humans: humans.length }
}

const yes = (auc: number) => (auc >= 0.95 ? 'yes' : '**no**')
const row = (name: string, n: number, m: ReturnType<typeof metrics>, p: ReturnType<typeof pipelineMetrics>) =>
  `| ${name} | ${n} | ${fmt(m.auc)} | ${fmt(m.tpr, 3)} | ${fmt(m.brier)} | ${fmt(m.ece)} | ${fmt(p.auc)} | ${fmt(p.tpr, 3)} | ${pct(p.humansBelow30, p.humans)} | ${yes(m.auc)} / ${yes(p.auc)} |`
const header = [
  '| held-out family | bots | ROC AUC | TPR @ 1% FPR | Brier | ECE | pipeline AUC | pipeline TPR @ 1% FPR | humans hcs < 30 | AUC ≥ 0.95 (model / pipeline) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|',
]

function shuffle<T>(items: T[], seed: number): T[] {
  const rng = createRng(seed)
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    ;[items[i], items[j]] = [items[j], items[i]]
  }
  return items
}

const started = performance.now()
const samples = buildDataset(EVAL_SEED, DATASET_SIZE)
const testHumans = samples.filter((s) => s.human && s.split === 'test')
console.log(`eval seed ${EVAL_SEED}: ${samples.length} sessions; test humans ${testHumans.length}\n`)

// One organization's traffic, as ingest sees it. First the human sessions the
// replays were recorded from (the org's earlier traffic; not counted), then, in
// an order shuffled with the seed, the test-split humans and every session of
// every bot family.
const sources: Slot[] = Array.from({ length: DATASET_SIZE.botsPerFamily }, (_, i) => ({ family: 'replay', i, counted: false }))
const arrivals: Slot[] = []
for (let i = 0; i < DATASET_SIZE.humans; i++) if (splitOf(i) === 'test') arrivals.push({ family: 'human', i, counted: true })
for (const family of BOT_FAMILY_NAMES) for (let i = 0; i < DATASET_SIZE.botsPerFamily; i++) arrivals.push({ family, i, counted: true })
const slots = [...sources, ...shuffle(arrivals, deriveSeed(EVAL_SEED, 'org-stream', 0))]
function* sessionsOf(list: readonly Slot[]): Generator<StreamSession> {
  for (const s of list) {
    // replaySession draws the source first from the replay's own seed, so this is the very session it replays.
    const signals: Signal[] = s.counted ? sessionFor(EVAL_SEED, s.family, s.i) : replaySession(createRng(deriveSeed(EVAL_SEED, 'replay', s.i))).source
    yield { signals }
  }
}
const entries = streamEvidence(sessionsOf(slots))
const flagged = (keep: (s: Slot) => boolean) => {
  const of = entries.filter((_, k) => keep(slots[k]))
  return `${of.filter((e) => e.replayed).length} of ${of.length}`
}

console.log('### Leave one bot family out\n')
console.log('Trained on every other family (train split), calibrated on the calibration split, tested on the test-split humans plus every session of the held-out family.')
console.log('Model columns: m3_score on the feature vectors. Pipeline columns: hcs / 100 from scoreSession with the held-out model, over one organization\'s stream')
console.log('(replay sources first, then the test humans and all bots in a seeded order; `replayed` = an earlier session has the same fingerprint, as in ingest).\n')
console.log(header.join('\n'))
let lofoBelow30 = 0
let lofoHumans = 0
for (const family of BOT_FAMILY_NAMES) {
  const model = trainModel(
    samples.filter((s) => s.family !== family),
    { version: `lofo-${family}`, seed: EVAL_SEED },
  )
  const bots = samples.filter((s) => s.family === family)
  const pipeline = pipelineMetrics(model, slots, entries, (s) => s.family === family)
  lofoBelow30 += pipeline.humansBelow30
  lofoHumans += pipeline.humans
  console.log(row(family, bots.length, metrics(model, testHumans, bots), pipeline))
}
console.log(`\nStream: ${slots.length} sessions. Flagged \`replayed\`: replays ${flagged((s) => s.counted && s.family === 'replay')}, test humans ${flagged((s) => s.counted && s.family === 'human')}, other bots ${flagged((s) => s.counted && s.family !== 'human' && s.family !== 'replay')}, replay sources ${flagged((s) => !s.counted)}.`)
console.log(`Humans below hcs 30 over the 12 held-out pipeline runs: ${lofoBelow30} of ${lofoHumans} scorings (${pct(lofoBelow30, lofoHumans)}).`)

console.log('\n### Shipped model on unseen sessions\n')
console.log(`${shipped.model_version}, every family seen in training; test-split sessions of the eval seed, pipeline columns on the same stream.\n`)
console.log(header.join('\n').replace('held-out family', 'family'))
const isTest = (s: Slot) => s.counted && splitOf(s.i) === 'test'
for (const family of BOT_FAMILY_NAMES) {
  const bots = samples.filter((s) => s.family === family && s.split === 'test')
  console.log(row(family, bots.length, metrics(shipped, testHumans, bots), pipelineMetrics(shipped, slots, entries, (s) => s.family === family && isTest(s))))
}
const allBots = samples.filter((s) => !s.human && s.split === 'test')
console.log(row('all bots', allBots.length, metrics(shipped, testHumans, allBots), pipelineMetrics(shipped, slots, entries, (s) => s.family !== 'human' && isTest(s))))

console.log('\n### Synthetic humans through scoreSession (shipped model, integrity checks on)\n')
// All of them in one organization, in index order, so a fingerprint shared by two humans would flag the later one.
const humanEntries = streamEvidence(sessionsOf(Array.from({ length: DATASET_SIZE.humans }, (_, i): Slot => ({ family: 'human', i, counted: true }))))
const verdicts: Record<string, number> = {}
let below30 = 0
for (const r of scoreStream(shipped, humanEntries)) {
  if (r.hcs < 30) below30++
  verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1
}
console.log(`- humans: ${DATASET_SIZE.humans}; hcs < 30: ${below30} (${pct(below30, DATASET_SIZE.humans)}); flagged as replayed: ${humanEntries.filter((e) => e.replayed).length}`)
console.log(`- verdicts: ${Object.entries(verdicts).map(([v, n]) => `${v} ${fmt((n / DATASET_SIZE.humans) * 100, 1)}%`).join(', ')}`)

const checks = { tf1: { with: 0, matched: 0 }, tt1: { with: 0, matched: 0 } }
const replays = DATASET_SIZE.botsPerFamily
for (let i = 0; i < replays; i++) {
  const { signals, source } = replaySession(createRng(deriveSeed(EVAL_SEED, 'replay-fingerprint', i)))
  const fp = trajectoryFingerprint(source)
  if (fp === null) continue
  const kind = checks[fp.slice(0, 3) as keyof typeof checks]
  kind.with++
  if (fp === trajectoryFingerprint(signals)) kind.matched++
}
const none = replays - checks.tf1.with - checks.tt1.with
console.log(`- replays whose fingerprint equals their source's: pointer (tf1) ${checks.tf1.matched} of ${checks.tf1.with}, touch (tt1) ${checks.tt1.matched} of ${checks.tt1.with}; ${none} sources have no fingerprint`)
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`)
