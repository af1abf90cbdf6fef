// NaturalMouseMotion as DELBOT's bot script drove it and DELBOT's recorder kept it (docs/scoring.md, m4-2026.11.16):
// python/botDrawing.py, move_type 5, draws through 10–20 random points of the canvas and back to the first with
// FastGamerMotion, the button held; the recorder keeps a drawing from its mousedown to its mouseup ("one circle"
// in the eval's DELBOT rows) and a page as the drawings one after another, up to 60 s. Those recordings are not
// in ml/data; this scores the same shape of session with a model file:
//   npx bun run ml/experiments/delbot-nmm.ts                       (the committed model)
//   git show <commit>:src/scoring/model/<version>.json > /tmp/old.json
//   MODEL=/tmp/old.json npx bun run ml/experiments/delbot-nmm.ts
import type { Signal } from '../../src/scoring/signals'
import { drawThrough, randomNature, sleepSlack } from '../generators/naturalmouse'
import { randomVisitOptions, Visit } from '../generators/visit'
import { createRng, deriveSeed, type Rng } from '../synth/prng'
import { modelFromEnv, verdictCounts } from './model-file'

const model = modelFromEnv()

/** the script's canvas region: 885–3036 × 504–1423 device px over the screen's scale of 2.5 */
const canvasPoint = (rng: Rng) => ({ x: Math.round(rng.uniform(354, 1214)), y: Math.round(rng.uniform(201, 569)) })

/**
 * one recording as DELBOT's recorder keeps it: from the first mousedown, only moves with the button held.
 * `at60Hz`: the moves reach the page a frame at a time, 60 a second, as DELBOT's people and its pyHM bot were
 * recorded (median gaps 15–17 ms); otherwise the page-visit generator's mix (a third of them one event per
 * Robot step, the rest frames of 60–144 Hz), which the first measurement of m4-2026.11.16 used
 */
function recording(i: number, page: boolean, at60Hz: boolean): Signal[] {
  const rng = createRng(deriveSeed(20261116, page ? 'delbot-nmm-page' : 'delbot-nmm-trajectory', i))
  const nature = randomNature(rng, 'fast_gamer')
  const slack = sleepSlack(rng)
  const options = randomVisitOptions(rng)
  const delivery = at60Hz ? { kind: 'frames' as const, frameMs: 1000 / 60, phase: rng.uniform(0, 16) } : options.delivery
  const visit = new Visit(rng, { ...options, delivery, viewport: { w: 1536, h: 750 } })
  do {
    drawThrough(
      rng,
      visit,
      nature,
      slack,
      Array.from({ length: rng.int(10, 20) }, () => canvasPoint(rng)),
      false
    )
    // Selenium's export click between drawings: no pointer event
    visit.sleep(rng.uniform(300, 1500))
  } while (page && visit.t < 55_000)
  const held: Signal[] = []
  let down = false
  for (const e of visit.finish()) {
    if (e.k === 'md') down = true
    if (down && (e.k === 'md' || e.k === 'mm' || e.k === 'mu')) held.push(e)
    if (e.k === 'mu') down = false
  }
  // the recorder has no coalesced count, and its clock starts at the first press
  const t0 = held[0].t
  return held.filter((e) => e.t - t0 <= 60_000).map(({ n: _n, ...e }) => ({ ...e, t: e.t - t0 }))
}

for (const at60Hz of [true, false])
  for (const page of [false, true]) {
    const count = page ? 60 : 200
    const verdicts = verdictCounts(
      model,
      Array.from({ length: count }, (_, i) => recording(i, page, at60Hz))
    )
    const unit = page ? 'pages' : 'single drawings'
    console.log(`${model.model_version} ${unit}, ${at60Hz ? "DELBOT's 60 Hz" : 'mixed delivery'}: ${JSON.stringify(verdicts)} of ${count}`)
  }
