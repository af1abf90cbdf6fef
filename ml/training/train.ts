// npm run train — generate the synthetic data set, fit the M3 trees and the
// calibration, write model/<version>.json. Same seed → byte-identical file.
// `npm run train -- --check` retrains and fails if the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs'
import { humanProbability } from '../../src/scoring/inference'
import { rocAuc } from './metrics'
import { DATASET_SIZE, MODEL_VERSION_TAG, TRAINING_SEED, buildDataset, serializeModel, trainModel } from './pipeline'

const path = new URL(`../../src/scoring/model/${MODEL_VERSION_TAG}.json`, import.meta.url)
const started = performance.now()
const samples = buildDataset(TRAINING_SEED, DATASET_SIZE)
const generated = performance.now()
const model = trainModel(samples, { version: MODEL_VERSION_TAG, seed: TRAINING_SEED })

const test = samples.filter((s) => s.split === 'test')
const humans = test.filter((s) => s.human).map((s) => humanProbability(model, s.features))
const families = [...new Set(test.filter((s) => !s.human).map((s) => s.family))]
model.training.dataset = { ...DATASET_SIZE, source: 'synthetic, ml/synth', split: '60% train / 20% calibration / 20% test' }
model.training.test_auc = Object.fromEntries(
  families.map((f) => [f, Math.round(rocAuc(humans, test.filter((s) => s.family === f).map((s) => humanProbability(model, s.features))) * 1e4) / 1e4]),
)
const text = serializeModel(model)

if (process.argv.includes('--check')) {
  const same = readFileSync(path, 'utf8') === text
  console.log(same ? `${MODEL_VERSION_TAG}.json is reproducible` : `${MODEL_VERSION_TAG}.json differs from a fresh training run`)
  process.exit(same ? 0 : 1)
}
writeFileSync(path, text)
console.log(`${samples.length} sessions generated in ${((generated - started) / 1000).toFixed(1)} s, trained in ${((performance.now() - generated) / 1000).toFixed(1)} s`)
console.log(`wrote ${path.pathname} (${(text.length / 1024).toFixed(0)} KiB), calibration a=${model.calibration.a.toFixed(4)} b=${model.calibration.b.toFixed(4)}`)
console.log('test-split AUC per family:', model.training.test_auc)
