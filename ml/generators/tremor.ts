// A hand tremor laid over a real recording: what the pointer of a person with essential tremor (4–12 Hz,
// an action tremor, so present while they move) or a Parkinsonian tremor (4–6 Hz) might look like. The
// oscillation is continuous in time and sampled at the recording's own event times, so it reaches the page
// as a hand's would: smooth between samples, not noise drawn anew for each. Its frequency drifts by up to
// ±10 % and its amplitude swells and fades (0.6–1.4 of its size, over 2–5 s), each axis with its own size
// and phase. A model of a tremor, not a recording of one: no recordings of people with a tremor are here.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'

export type Tremor = { amplitudePx: number; hz: number }

/** the recording with a tremor of about `amplitudePx` (peak, px) at about `hz` added to every mouse move */
export function withTremor(rng: Rng, signals: readonly Signal[], tremor: Tremor): Signal[] {
  const ax = tremor.amplitudePx * rng.uniform(0.5, 1)
  const ay = tremor.amplitudePx * rng.uniform(0.5, 1)
  const phaseY = rng.uniform(0, 2 * Math.PI)
  const drift = { period: rng.uniform(3000, 8000), phase: rng.uniform(0, 2 * Math.PI) }
  const swell = { period: rng.uniform(2000, 5000), phase: rng.uniform(0, 2 * Math.PI) }
  // the phase is the integral of the drifting frequency, stepped at the recording's event times
  let phase = rng.uniform(0, 2 * Math.PI)
  let last = signals.length ? signals[0]!.t : 0
  const round = (v: number) => Math.round(v * 10) / 10
  return signals.map((e) => {
    const hz = tremor.hz * (1 + 0.1 * Math.sin((2 * Math.PI * e.t) / drift.period + drift.phase))
    phase += 2 * Math.PI * hz * (Math.max(0, e.t - last) / 1000)
    last = Math.max(last, e.t)
    if (e.k !== 'mm' || e.x === undefined || e.y === undefined) return e
    const size = 1 + 0.4 * Math.sin((2 * Math.PI * e.t) / swell.period + swell.phase)
    return { ...e, x: round(e.x + ax * size * Math.sin(phase)), y: round(e.y + ay * size * Math.sin(phase + phaseY)) }
  })
}
