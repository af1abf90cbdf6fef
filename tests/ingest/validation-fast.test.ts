import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import * as v from 'valibot'
import { KEY_CLASSES, SIGNAL_KINDS } from '../../src/scoring/signals'
import { FastSignals, fastSignals, Signals } from '../../src/server/modules/ingest/model'

/** Same keys in the same order, every value identical by Object.is. */
function identical(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false
  return a.every((x, i) => {
    const p = x as Record<string, unknown>
    const q = b[i] as Record<string, unknown>
    const keys = Object.keys(q)
    return Object.keys(p).join() === keys.join() && keys.every((k) => Object.is(p[k], q[k]))
  })
}

const junk = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constantFrom(-1, -0, 0, 1, 2, 0.5, 1e308, -1e-9),
  fc.array(fc.integer(), { maxLength: 2 })
)
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -10, max: 10 }), junk)
/** Events that are mostly valid, with now and then a wrong value, a missing key or a stray key. */
const event = fc.record(
  {
    t: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.double({ min: 0, max: 50, noNaN: true }), junk),
    k: fc.oneof(fc.constantFrom(...SIGNAL_KINDS), junk),
    x: number,
    y: number,
    dy: number,
    kc: fc.oneof(fc.constantFrom(...KEY_CLASSES), junk),
    tr: fc.oneof(fc.boolean(), junk),
    ox: number,
    oy: number,
    p: number,
    r: number,
    n: number,
    sc: fc.oneof(fc.constantFrom(0, 1, true, false), junk),
    key: fc.string(),
  },
  { requiredKeys: [] }
)
// Through JSON, as a request body arrives (no undefined values, -0 kept by JSON.parse only when written "-0").
const body = fc.oneof(fc.array(event, { maxLength: 12 }), junk).map((x) => JSON.parse(JSON.stringify(x)))

describe('the signals fast path', () => {
  it('accepts only what valibot accepts, with valibot’s exact output; valibot words every error (property)', () => {
    let fastAccepted = 0
    fc.assert(
      fc.property(body, (input) => {
        const slow = v.safeParse(Signals, input)
        const fast = fastSignals(input)
        if (fast) {
          fastAccepted++
          expect(slow.success).toBe(true)
          expect(identical(fast, slow.output as unknown[])).toBe(true)
        }
        const wrapped = v.safeParse(FastSignals, input)
        expect(wrapped.success).toBe(slow.success)
        if (!slow.success)
          expect(wrapped.issues!.map((i) => [v.getDotPath(i), i.message])).toEqual(slow.issues.map((i) => [v.getDotPath(i), i.message]))
        else expect(identical(wrapped.output as unknown[], slow.output as unknown[])).toBe(true)
      }),
      { numRuns: 3000 }
    )
    // The property must have exercised the fast path, not only the fallback.
    expect(fastAccepted).toBeGreaterThan(100)
  })

  it('falls back on time going back, a bad kind and too many events', () => {
    expect(
      fastSignals([
        { t: 5, k: 'mm' },
        { t: 4, k: 'mm' },
      ])
    ).toBeUndefined()
    expect(fastSignals([{ t: 5, k: 'zz' }])).toBeUndefined()
    expect(fastSignals(Array.from({ length: 10_001 }, (_, t) => ({ t, k: 'mm' })))).toBeUndefined()
    expect(fastSignals([{ t: -0, k: 'c', sc: -0, extra: 1 }])).toEqual([{ t: -0, k: 'c', sc: -0 }])
  })
})
