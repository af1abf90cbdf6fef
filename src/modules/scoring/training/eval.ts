// npm run eval — leave-one-bot-family-out evaluation on a fresh synthetic
// data set (a seed the shipped model never saw), plus the shipped model's
// numbers on the same data. Prints markdown tables for docs/scoring.md.
import { extractFeatures } from '../features'
import { type M3Model, humanProbability } from '../inference'
import { M3_MODEL as shipped, scoreSession, trajectoryFingerprint } from '../service'
import { BOT_FAMILY_NAMES, replaySession } from '../synth/bots'
import { createRng, deriveSeed } from '../synth/prng'
import { brier, expectedCalibrationError, rocAuc, tprAtFpr } from './metrics'
import { DATASET_SIZE, EVAL_SEED, type Sample, buildDataset, sessionFor, trainModel } from './pipeline'

const fmt = (v: number, d = 4) => v.toFixed(d)

function metrics(model: M3Model, humans: readonly Sample[], bots: readonly Sample[]) {
  const h = humans.map((s) => humanProbability(model, s.features))
  const b = bots.map((s) => humanProbability(model, s.features))
  const probs = [...h, ...b]
  const labels = [...h.map(() => 1), ...b.map(() => 0)]
  return { auc: rocAuc(h, b), tpr: tprAtFpr(h, b, 0.01), brier: brier(probs, labels), ece: expectedCalibrationError(probs, labels) }
}

const row = (name: string, m: ReturnType<typeof metrics>, n: number) =>
  `| ${name} | ${n} | ${fmt(m.auc)} | ${fmt(m.tpr, 3)} | ${fmt(m.brier)} | ${fmt(m.ece)} | ${m.auc >= 0.95 ? 'yes' : '**no**'} |`
const header = ['| held-out family | bots | ROC AUC | TPR @ 1% FPR | Brier | ECE | AUC ≥ 0.95 |', '|---|---:|---:|---:|---:|---:|:---:|']

const started = performance.now()
const samples = buildDataset(EVAL_SEED, DATASET_SIZE)
const testHumans = samples.filter((s) => s.human && s.split === 'test')
console.log(`eval seed ${EVAL_SEED}: ${samples.length} sessions; test humans ${testHumans.length}\n`)

console.log('### Leave one bot family out\n')
console.log('Trained on every other family (train split), calibrated on the calibration split, tested on the test-split humans plus every session of the held-out family.\n')
console.log(header.join('\n'))
for (const family of BOT_FAMILY_NAMES) {
  const model = trainModel(
    samples.filter((s) => s.family !== family),
    { version: `lofo-${family}`, seed: EVAL_SEED },
  )
  const bots = samples.filter((s) => s.family === family)
  console.log(row(family, metrics(model, testHumans, bots), bots.length))
}

console.log('\n### Shipped model on unseen sessions\n')
console.log(`${shipped.model_version}, every family seen in training; test-split sessions of the eval seed.\n`)
console.log(header.join('\n').replace('held-out family', 'family'))
for (const family of BOT_FAMILY_NAMES) {
  const bots = samples.filter((s) => s.family === family && s.split === 'test')
  console.log(row(family, metrics(shipped, testHumans, bots), bots.length))
}
const allBots = samples.filter((s) => !s.human && s.split === 'test')
console.log(row('all bots', metrics(shipped, testHumans, allBots), allBots.length))

console.log('\n### Synthetic humans through scoreSession (shipped model, integrity checks on)\n')
const verdicts: Record<string, number> = {}
let below30 = 0
for (let i = 0; i < DATASET_SIZE.humans; i++) {
  const signals = sessionFor(EVAL_SEED, 'human', i)
  const r = scoreSession({ signals, clientFeatures: extractFeatures(signals) })
  if (r.hcs < 30) below30++
  verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1
}
console.log(`- humans: ${DATASET_SIZE.humans}; hcs < 30: ${below30} (${fmt((below30 / DATASET_SIZE.humans) * 100, 2)}%)`)
console.log(`- verdicts: ${Object.entries(verdicts).map(([v, n]) => `${v} ${fmt((n / DATASET_SIZE.humans) * 100, 1)}%`).join(', ')}`)

let withFingerprint = 0
let matched = 0
const replays = DATASET_SIZE.botsPerFamily
for (let i = 0; i < replays; i++) {
  const { signals, source } = replaySession(createRng(deriveSeed(EVAL_SEED, 'replay-fingerprint', i)))
  const fp = trajectoryFingerprint(signals)
  if (fp === null) continue
  withFingerprint++
  if (fp === trajectoryFingerprint(source)) matched++
}
console.log(`- replays whose fingerprint equals their source's: ${matched} of ${withFingerprint} with a pointer trajectory (${replays - withFingerprint} touch-only replays have none)`)
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`)
