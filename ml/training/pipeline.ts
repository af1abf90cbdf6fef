// Synthetic sessions by family and index, seeded: the tests' and benches' source of
// synthetic humans and bots (ml/synth). The shipped model is trained on real people
// (real.ts); the synthetic-only M3 trainer that lived here is gone with M3.
import type { Signal } from '../../src/scoring/signals'
import { BOT_FAMILIES, type BotFamily } from '../synth/bots'
import { humanSession } from '../synth/human'
import { createRng, deriveSeed } from '../synth/prng'

export type Family = 'human' | BotFamily

export function sessionFor(seed: number, family: Family, i: number): Signal[] {
  const rng = createRng(deriveSeed(seed, family, i))
  return family === 'human' ? humanSession(rng) : BOT_FAMILIES[family](rng)
}
