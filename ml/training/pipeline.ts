// From seed to model: synthetic sessions → feature vectors → boosted trees
// → Platt calibration. Shared by train.ts, eval.ts and the tests.
import { FEATURE_NAMES, FEATURE_VERSION, extractFeatures } from '../../src/scoring/features'
import type { M3Model } from '../../src/scoring/inference'
import { treeMargin } from '../../src/scoring/inference'
import type { Signal } from '../../src/scoring/signals'
import { BOT_FAMILIES, BOT_FAMILY_NAMES, type BotFamily } from '../synth/bots'
import { humanSession } from '../synth/human'
import { createRng, deriveSeed } from '../synth/prng'
import { fitPlatt } from './calibration'
import { type GbdtParams, fitGbdt } from './gbdt'

export type Family = 'human' | BotFamily
export type Split = 'train' | 'calibration' | 'test'
export type Sample = { family: Family; human: 0 | 1; split: Split; features: number[] }

export const MODEL_VERSION_TAG = 'm3-2026.11.0'
export const TRAINING_SEED = 20261100
export const EVAL_SEED = 20261199

export const DATASET_SIZE = { humans: 6000, botsPerFamily: 500 }

export const DEFAULT_PARAMS: Omit<GbdtParams, 'seed'> = {
  trees: 200,
  depth: 3,
  learningRate: 0.1,
  minLeaf: 10,
  lambda: 1,
  subsample: 0.8,
  bins: 64,
}

/** 60% train, 20% calibration, 20% test, by position in each family's stream */
export const splitOf = (i: number): Split => (i % 5 === 3 ? 'calibration' : i % 5 === 4 ? 'test' : 'train')

export function sessionFor(seed: number, family: Family, i: number): Signal[] {
  const rng = createRng(deriveSeed(seed, family, i))
  return family === 'human' ? humanSession(rng) : BOT_FAMILIES[family](rng)
}

export function buildDataset(
  seed: number,
  size: { humans: number; botsPerFamily: number },
  families: readonly BotFamily[] = BOT_FAMILY_NAMES
): Sample[] {
  const samples: Sample[] = []
  const add = (family: Family, count: number) => {
    for (let i = 0; i < count; i++)
      samples.push({ family, human: family === 'human' ? 1 : 0, split: splitOf(i), features: extractFeatures(sessionFor(seed, family, i)) })
  }
  add('human', size.humans)
  for (const f of families) add(f, size.botsPerFamily)
  return samples
}

function countByFamily(samples: readonly Sample[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const s of samples) out[s.family] = (out[s.family] ?? 0) + 1
  return out
}

/** boosted trees on the train rows, Platt calibration on the calibration rows */
export function trainModel(
  samples: readonly Sample[],
  opts: { version: string; seed: number; params?: Omit<GbdtParams, 'seed'> }
): M3Model {
  const params = { ...(opts.params ?? DEFAULT_PARAMS), seed: opts.seed }
  const train = samples.filter((s) => s.split === 'train')
  const calibration = samples.filter((s) => s.split === 'calibration')
  const fitted = fitGbdt(
    train.map((s) => s.features),
    train.map((s) => s.human),
    params
  )
  const margins = calibration.map((s) => treeMargin({ base_score: fitted.base, trees: fitted.trees }, s.features))
  const platt = fitPlatt(
    margins,
    calibration.map((s) => s.human)
  )
  const totalGain = fitted.gain.reduce((a, b) => a + b, 0) || 1
  return {
    model_version: opts.version,
    feature_version: FEATURE_VERSION,
    feature_names: [...FEATURE_NAMES],
    target: 'probability that the session is human',
    base_score: fitted.base,
    calibration: { method: 'platt', a: platt.a, b: platt.b },
    training: {
      seed: opts.seed,
      params,
      counts: { train: countByFamily(train), calibration: countByFamily(calibration) },
      feature_importance: Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, Math.round((fitted.gain[i] / totalGain) * 1e4) / 1e4])),
    },
    trees: fitted.trees,
  }
}

/** the model as committed: metadata indented, one tree per line */
export function serializeModel(model: M3Model): string {
  const { trees, ...meta } = model
  const head = JSON.stringify({ ...meta, trees: '__trees__' }, null, 2)
  return `${head.replace('"__trees__"', `[\n${trees.map((t) => `    ${JSON.stringify(t)}`).join(',\n')}\n  ]`)}\n`
}
