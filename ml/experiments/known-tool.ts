// A model file against fresh sessions of generator families: what that model answers a tool, on the sessions
// of the eval's table "Library families the shipped model was trained on" (same seed, same stream). Used to
// compare a model with the one before it on a family the older one never saw (docs/scoring.md, m4-2026.11.14):
//   git show <commit>:src/scoring/model/<version>.json > /tmp/old.json
//   MODEL=/tmp/old.json FAMS=natural_mouse_motion npx bun run ml/experiments/known-tool.ts
import { readFileSync } from 'node:fs'
import { windowFeatures } from '../../src/scoring/features'
import type { M4Model } from '../../src/scoring/inference'
import { MODEL, scoreSessionWith } from '../../src/scoring/service'
import { generatorFamily } from '../generators'
import { createRng, deriveSeed } from '../synth/prng'

const EVAL_SEED = 20261199 // eval.ts's
const model: M4Model = process.env.MODEL ? JSON.parse(readFileSync(process.env.MODEL, 'utf8')) : MODEL
for (const name of (process.env.FAMS ?? 'natural_mouse_motion').split(',')) {
  const family = generatorFamily(name)
  const verdicts: Record<string, number> = {}
  for (let i = 0; i < 200; i++) {
    const signals = family.make(createRng(deriveSeed(EVAL_SEED, `shipped:${name}`, i)))
    const r = scoreSessionWith(model, { signals, clientFeatures: windowFeatures(signals) })
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1
  }
  console.log(`${model.model_version} ${name}: ${JSON.stringify(verdicts)} of 200`)
}
