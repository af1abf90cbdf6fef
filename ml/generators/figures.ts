// Per-session typing figures as the real-data README reports them for 1,000
// typists (136M Keystrokes, Dhakal et al., CHI 2018), measured from a signal
// stream that carries key classes only. A key up is paired with the earliest
// open key down of the same class (the stream has no key identity).
import type { Signal } from '../../src/scoring/signals'
import { cv, median } from './random'

export type TypingFigures = {
  presses: number
  /** median key hold, ms */
  holdMedian: number
  /** coefficient of variation of holds */
  holdCv: number
  /** median down-to-down latency, ms */
  latencyMedian: number
  /** coefficient of variation of latencies of at most 2 s */
  latencyCv: number
  /** share of presses whose next key goes down before this one comes up */
  rollover: number
  /** share of gaps between consecutive key events under 2 ms */
  gapsUnder2ms: number
  /** presses per second, first key event to last */
  pressesPerSecond: number
}

export const FIGURE_NAMES = ['holdMedian', 'holdCv', 'latencyMedian', 'latencyCv', 'rollover', 'gapsUnder2ms', 'pressesPerSecond'] as const
export type FigureName = (typeof FIGURE_NAMES)[number]

/** README percentiles over 1,000 participants: p1, p5, p25, p50, p75, p95, p99 */
export const REAL_TYPING_PERCENTILES: Record<FigureName, readonly number[]> = {
  holdMedian: [64, 72, 88, 102, 119, 146, 170],
  holdCv: [0.21, 0.26, 0.36, 0.49, 0.69, 1.07, 1.36],
  latencyMedian: [88, 104, 144, 177, 222, 320, 440],
  latencyCv: [0.49, 0.56, 0.68, 0.77, 0.87, 1.13, 1.41],
  rollover: [0.005, 0.027, 0.065, 0.149, 0.279, 0.522, 0.665],
  gapsUnder2ms: [0, 0, 0.002, 0.01, 0.024, 0.083, 0.113],
  pressesPerSecond: [0.96, 1.65, 2.49, 3.27, 4.28, 5.74, 6.92],
}
export const PERCENTILE_LEVELS = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99] as const

/** key classes of all presses in the README, shares */
export const REAL_KEY_MIX = { char: 0.759, space: 0.149, back: 0.049, mod: 0.038, digit: 0.003, nav: 0.001 } as const

/** the figures of one session's key events, or null with fewer than 3 presses */
export function typingFigures(signals: readonly Signal[]): TypingFigures | null {
  const keys = signals.filter((e) => e.k === 'kd' || e.k === 'ku')
  const downs: { t: number; up: number }[] = []
  const open = new Map<string, number[]>()
  for (const e of keys) {
    const kc = e.kc ?? 'other'
    if (e.k === 'kd') {
      downs.push({ t: e.t, up: NaN })
      const q = open.get(kc) ?? []
      q.push(downs.length - 1)
      open.set(kc, q)
    } else {
      const i = open.get(kc)?.shift()
      if (i !== undefined) downs[i]!.up = e.t
    }
  }
  if (downs.length < 3) return null
  const holds = downs.filter((d) => Number.isFinite(d.up)).map((d) => d.up - d.t)
  const latencies = downs.slice(1).map((d, i) => d.t - downs[i]!.t)
  let rolled = 0
  for (let i = 0; i + 1 < downs.length; i++) if (downs[i + 1]!.t < downs[i]!.up) rolled++
  let small = 0
  for (let i = 1; i < keys.length; i++) if (keys[i]!.t - keys[i - 1]!.t < 2) small++
  const span = (keys[keys.length - 1]!.t - keys[0]!.t) / 1000
  return {
    presses: downs.length,
    holdMedian: median(holds),
    holdCv: cv(holds),
    latencyMedian: median(latencies),
    latencyCv: cv(latencies.filter((l) => l <= 2000)),
    rollover: rolled / (downs.length - 1),
    gapsUnder2ms: small / Math.max(1, keys.length - 1),
    pressesPerSecond: span > 0 ? downs.length / span : NaN,
  }
}
