// A model file against fresh sessions of generator families: what that model answers a tool, on the sessions
// of the eval's table "Library families the shipped model was trained on" (same seed, same stream). Used to
// compare a model with the one before it on a family the older one never saw (docs/scoring.md, m4-2026.11.14):
//   git show <commit>:src/scoring/model/<version>.json > /tmp/old.json
//   MODEL=/tmp/old.json FAMS=natural_mouse_motion npx bun run ml/experiments/known-tool.ts
import { generatorFamily } from '../generators'
import { createRng, deriveSeed } from '../synth/prng'
import { modelFromEnv, verdictCounts } from './model-file'

const EVAL_SEED = 20261199 // eval.ts's
const model = modelFromEnv()
for (const name of (process.env.FAMS ?? 'natural_mouse_motion').split(',')) {
  const family = generatorFamily(name)
  const sessions = Array.from({ length: 200 }, (_, i) => family.make(createRng(deriveSeed(EVAL_SEED, `shipped:${name}`, i))))
  console.log(`${model.model_version} ${name}: ${JSON.stringify(verdictCounts(model, sessions))} of 200`)
}
