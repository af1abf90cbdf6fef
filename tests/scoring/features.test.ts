import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { FEATURE_INDEX as F, FEATURE_NAMES, FEATURE_RANGES, NO_DATA, extractFeatures } from '../../src/scoring/features'
import { KEY_CLASSES, SIGNAL_KINDS, type Signal } from '../../src/scoring/signals'

const line = (n: number, dx: number, dt: number, t0 = 0): Signal[] =>
  Array.from({ length: n }, (_, i) => ({ t: t0 + i * dt, k: 'mm', x: 100 + i * dx, y: 200 }))

function typing(latency: number, hold: number, keys = 10): Signal[] {
  const out: Signal[] = []
  for (let i = 0; i < keys; i++) {
    out.push({ t: i * latency, k: 'kd', kc: 'char' })
    out.push({ t: i * latency + hold, k: 'ku', kc: 'char' })
  }
  return out.sort((a, b) => a.t - b.t)
}

describe('extractFeatures on hand-built sequences', () => {
  it('a straight line at constant speed: straightness 1, no deviation, speed CV 0', () => {
    const f = extractFeatures(line(50, 5, 10))
    expect(f).toHaveLength(34)
    expect(f[F.ptr_moves_log]).toBeCloseTo(Math.log(51), 12)
    expect(f[F.ptr_straightness]).toBeCloseTo(1, 12)
    expect(f[F.ptr_deviation]).toBeCloseTo(0, 12)
    expect(f[F.ptr_speed_log]).toBeCloseTo(Math.log1p(500), 9)
    expect(f[F.ptr_speed_cv]).toBeCloseTo(0, 9)
    expect(f[F.ptr_accel_sd_norm]).toBeCloseTo(0, 6)
    expect(f[F.ptr_heading_entropy]).toBe(0)
    expect(f[F.ptr_peaks_per_stroke]).toBe(0)
    expect(f[F.move_coalesced_mean]).toBe(1)
  })

  it('a half circle: straightness 2/π and deviation ½ of the chord', () => {
    const n = 400
    const signals: Signal[] = Array.from({ length: n + 1 }, (_, i) => {
      const a = Math.PI * (i / n)
      return { t: i * 2, k: 'mm', x: 500 - 100 * Math.cos(a), y: 500 - 100 * Math.sin(a) }
    })
    const f = extractFeatures(signals)
    expect(f[F.ptr_straightness]).toBeCloseTo(2 / Math.PI, 4)
    expect(f[F.ptr_deviation]).toBeCloseTo(0.5, 6)
  })

  it('harmonic motion on an ellipse obeys the two-thirds power law', () => {
    const signals: Signal[] = Array.from({ length: 150 }, (_, i) => {
      const w = (2 * Math.PI * (i * 8)) / 1000
      return { t: i * 8, k: 'mm', x: 400 + 200 * Math.cos(w), y: 300 + 80 * Math.sin(w) }
    })
    expect(extractFeatures(signals)[F.ptr_power_law_dev]).toBeLessThan(0.02)
  })

  it('two separated speed bumps count as two submovements; a minimum-jerk stroke peaks at half time', () => {
    const bump = (u: number) => 10 * u ** 3 - 15 * u ** 4 + 6 * u ** 5
    const one: Signal[] = Array.from({ length: 61 }, (_, i) => ({ t: i * 10, k: 'mm', x: 100 + 400 * bump(i / 60), y: 100 }))
    const f1 = extractFeatures(one)
    expect(f1[F.ptr_peaks_per_stroke]).toBe(1)
    expect(f1[F.ptr_peak_time_share]).toBeCloseTo(0.5, 1)
    const two: Signal[] = Array.from({ length: 121 }, (_, i) => {
      const x = i <= 60 ? 300 * bump(i / 60) : 300 + 100 * bump((i - 60) / 60)
      return { t: i * 10, k: 'mm', x: 100 + x, y: 100 }
    })
    expect(extractFeatures(two)[F.ptr_peaks_per_stroke]).toBe(2)
  })

  it('a 10 Hz wobble on a slow drift puts most movement power in the tremor band', () => {
    const drift = line(100, 1, 10)
    const wobble = drift.map((s) => ({ ...s, y: 200 + 3 * Math.sin((2 * Math.PI * 10 * s.t) / 1000) }))
    expect(extractFeatures(wobble)[F.ptr_tremor_share]).toBeGreaterThan(0.8)
    expect(extractFeatures(drift)[F.ptr_tremor_share]).toBe(0)
  })

  it('a pause longer than 200 ms or a button press splits strokes', () => {
    const split = [...line(10, 5, 10), ...line(10, 0, 10, 400).map((s) => ({ ...s, y: 260 + s.t - 400 }))]
    expect(extractFeatures(split)[F.ptr_straightness]).toBeCloseTo(1, 12)
    const pressed: Signal[] = [
      ...line(10, 5, 10),
      { t: 95, k: 'md', x: 145, y: 200 },
      ...line(10, 0, 10, 100).map((s) => ({ ...s, y: 200 + s.t - 100 })),
    ]
    expect(extractFeatures(pressed)[F.ptr_straightness]).toBeCloseTo(1, 12)
  })

  it('fixed 100 ms typing with 50 ms holds: latency 100 and CV 0, holds 50 and CV 0, no rollover', () => {
    const f = extractFeatures(typing(100, 50))
    expect(f[F.key_downs_log]).toBeCloseTo(Math.log(11), 12)
    expect(f[F.key_latency_median]).toBe(100)
    expect(f[F.key_latency_cv]).toBeCloseTo(0, 12)
    expect(f[F.key_interval_log_sd]).toBeCloseTo(0, 12)
    expect(f[F.key_hold_median]).toBe(50)
    expect(f[F.key_hold_cv]).toBeCloseTo(0, 12)
    expect(f[F.key_rollover]).toBe(0)
    expect(f[F.text_without_keys]).toBe(0)
  })

  it('keys pressed before the previous one is released are rollover', () => {
    const f = extractFeatures(typing(80, 120))
    expect(f[F.key_rollover]).toBe(1)
    expect(f[F.key_hold_median]).toBe(120)
  })

  it('clicks: hold, offset from the target centre, dwell after the last move', () => {
    const f = extractFeatures([
      ...line(5, 2, 10),
      { t: 140, k: 'md', x: 108, y: 200 },
      { t: 240, k: 'mu', x: 108, y: 200 },
      { t: 240, k: 'c', x: 108, y: 200, ox: 0.6, oy: 0.8 },
    ])
    expect(f[F.click_hold_mean]).toBe(100)
    expect(f[F.click_offset_mean]).toBeCloseTo(1, 12)
    expect(f[F.click_dwell_mean]).toBe(100)
  })

  it('scrolls with one repeated delta at a fixed pace', () => {
    const f = extractFeatures(Array.from({ length: 4 }, (_, i): Signal => ({ t: i * 50, k: 's', dy: 100 })))
    expect(f[F.scroll_events_log]).toBeCloseTo(Math.log(5), 12)
    expect(f[F.scroll_delta_distinct]).toBe(0.25)
    expect(f[F.scroll_gap_cv]).toBe(0)
  })

  it('touch: constant contact has variance 0; radii 10,12,14 have variance 8/3', () => {
    const swipe = (r: (i: number) => number): Signal[] =>
      Array.from({ length: 8 }, (_, i) => ({ t: i * 16, k: i === 0 ? 'ts' : i === 7 ? 'te' : 'tm', x: 200, y: 600 - 20 * i * i, r: r(i) }))
    expect(extractFeatures(swipe(() => 12))[F.touch_radius_pressure_var]).toBe(0)
    const varying: Signal[] = [10, 12, 14].map((r, i) => ({ t: i * 16, k: i ? 'tm' : 'ts', x: 1, y: 1, r }))
    expect(extractFeatures(varying)[F.touch_radius_pressure_var]).toBeCloseTo(8 / 3, 12)
    // speed grows all the way: the swipe peaks at its end
    expect(extractFeatures(swipe(() => 12))[F.swipe_peak_time_share]).toBeGreaterThan(0.8)
  })

  it('timing: 1 ms gaps are bursts, 5 ms multiples are on the grid, click gaps do not count', () => {
    const burst = line(20, 1, 1)
    expect(extractFeatures(burst)[F.gap_burst_share]).toBe(1)
    const grid = line(20, 3, 15)
    expect(extractFeatures(grid)[F.gap_grid_share]).toBe(1)
    expect(extractFeatures(line(20, 3, 16.7))[F.gap_grid_share]).toBeLessThan(0.2)
    const withClick: Signal[] = [
      ...line(4, 3, 20),
      { t: 70, k: 'md', x: 1, y: 1 },
      { t: 90, k: 'mu', x: 1, y: 1 },
      { t: 90, k: 'c', x: 1, y: 1 },
    ]
    expect(extractFeatures(withClick)[F.gap_burst_share]).toBe(0)
  })

  it('coalesced samples, untrusted share and screen = client share', () => {
    const signals: Signal[] = [
      { t: 0, k: 'mm', x: 0, y: 0, n: 4 },
      { t: 16, k: 'mm', x: 1, y: 0, n: 2, sc: 1 },
      { t: 32, k: 'mm', x: 2, y: 0, sc: true, tr: false },
      { t: 40, k: 'f' },
    ]
    const f = extractFeatures(signals)
    expect(f[F.move_coalesced_mean]).toBeCloseTo(7 / 3, 12)
    expect(f[F.untrusted_share]).toBe(0.25)
    expect(f[F.screen_client_equal_share]).toBeCloseTo(2 / 3, 12)
  })

  it('no signals: counts 0, feature 22 0, everything else NO_DATA', () => {
    const f = extractFeatures([])
    const zeros = [F.ptr_moves_log, F.key_downs_log, F.text_without_keys, F.scroll_events_log]
    f.forEach((v, i) => {
      expect(v).toBe(zeros.includes(i) ? 0 : NO_DATA)
    })
  })

  it('names and ranges cover all 34 features', () => {
    expect(FEATURE_NAMES).toHaveLength(34)
    expect(new Set(FEATURE_NAMES).size).toBe(34)
    expect(FEATURE_RANGES).toHaveLength(34)
  })
})

const edgeNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e-300, -1e-300, 1e12, -1e12, 1e300, -1e300, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.integer({ min: -5000, max: 5000 })
)

const signalArb = (time: fc.Arbitrary<number>, value: fc.Arbitrary<number>): fc.Arbitrary<Signal> =>
  fc.record(
    {
      t: time,
      k: fc.constantFrom(...SIGNAL_KINDS),
      x: value,
      y: value,
      dy: value,
      kc: fc.constantFrom(...KEY_CLASSES),
      tr: fc.boolean(),
      ox: value,
      oy: value,
      p: value,
      r: value,
      n: value,
      sc: fc.constantFrom(0 as const, 1 as const, true, false),
    },
    { requiredKeys: ['t', 'k'] }
  )

function expectValidVector(f: number[]): void {
  expect(f).toHaveLength(34)
  f.forEach((v, i) => {
    expect(Number.isFinite(v)).toBe(true)
    if (v !== NO_DATA) {
      expect(v).toBeGreaterThanOrEqual(FEATURE_RANGES[i][0])
      expect(v).toBeLessThanOrEqual(FEATURE_RANGES[i][1])
    }
  })
}

describe('extractFeatures properties', () => {
  it('any signal array, wild numbers included, gives 34 finite numbers within their ranges', () => {
    fc.assert(
      fc.property(fc.array(signalArb(edgeNumber, edgeNumber), { maxLength: 120 }), (signals) =>
        expectValidVector(extractFeatures(signals))
      ),
      { numRuns: 400 }
    )
  })

  it('ordered sessions with repeated timestamps and tiny gaps give valid vectors', () => {
    const gap = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3, noNaN: true }), fc.integer({ min: 0, max: 400 }))
    const session = fc
      .array(fc.tuple(gap, signalArb(fc.constant(0), fc.integer({ min: -3000, max: 3000 }))), { minLength: 1, maxLength: 300 })
      .map((items) => {
        let t = 0
        return items.map(([g, s]) => ({ ...s, t: (t += g) }))
      })
    fc.assert(
      fc.property(session, (signals) => expectValidVector(extractFeatures(signals))),
      { numRuns: 300 }
    )
  })

  it('does not throw on values outside the type (NaN, Infinity, strings)', () => {
    const junk = [
      { t: Number.NaN, k: 'mm', x: 1, y: 1 },
      { t: 1, k: 'mm', x: Number.POSITIVE_INFINITY, y: 1 },
      { t: 2, k: 'kd', kc: 'nonsense' },
      { t: 3, k: 'mm', x: '5', y: null },
      { t: Number.NEGATIVE_INFINITY, k: 's', dy: Number.NaN },
    ] as unknown as Signal[]
    expectValidVector(extractFeatures(junk))
  })
})
