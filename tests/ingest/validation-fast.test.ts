import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import * as v from 'valibot'
import { KEY_CLASSES, SIGNAL_KINDS } from '../../src/scoring/signals'
import { FEATURE_COUNT } from '../../src/server/platform/contract'
import { FastSignals, fastIngestBody, fastSignals, ingestBody, ingestBodySchema, Signals } from '../../src/server/modules/ingest/model'

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

/** The body's fields through JSON, each mostly valid, sometimes wrong, missing, or next to a stray key. */
const NOW = new Date('2026-11-22T12:00:00.000Z')
const uuid = fc.oneof(
  { arbitrary: fc.uuid(), weight: 4 },
  { arbitrary: fc.uuid().map((u) => u.toUpperCase()), weight: 2 },
  { arbitrary: fc.constantFrom('not-a-uuid', '', '00000000-0000-0000-0000-00000000000g'), weight: 1 }
)
const capturedAt = fc.oneof(
  fc.integer({ min: NOW.getTime() - 86_400_000, max: NOW.getTime() }).map((t) => new Date(t).toISOString()),
  fc.integer({ min: NOW.getTime() - 31 * 86_400_000, max: NOW.getTime() + 10 * 60_000 }).map((t) => new Date(t).toISOString()),
  fc.constantFrom(
    '2026-11-22T11:59:59Z',
    '2026-11-22T11:59:59.1234Z',
    '2026-02-31T00:00:00Z',
    '2026-11-22 12:00:00Z',
    '2026-11-22T12:00:00+01:00'
  ),
  junk
)
const features = fc.oneof(
  { arbitrary: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: FEATURE_COUNT, maxLength: FEATURE_COUNT }), weight: 4 },
  {
    arbitrary: fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: FEATURE_COUNT, maxLength: FEATURE_COUNT }),
    weight: 4,
  },
  fc.array(number, { minLength: FEATURE_COUNT, maxLength: FEATURE_COUNT }),
  fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: FEATURE_COUNT + 1 }),
  junk
)
const wholeBody = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          session_id: uuid,
          sdk_type: fc.oneof(
            { arbitrary: fc.constantFrom('web', 'ios', 'android', 'server', 'WEB'), weight: 4 },
            { arbitrary: junk, weight: 1 }
          ),
          captured_at: capturedAt,
          signals: fc.oneof(
            {
              arbitrary: fc.constantFrom(
                [],
                [{ t: 1, k: 'mm', x: 1.5, y: -2, n: 3 }],
                [
                  { t: 0, k: 'c', sc: true },
                  { t: 0, k: 'kd', kc: KEY_CLASSES[0] },
                ]
              ),
              weight: 4,
            },
            { arbitrary: fc.array(event, { maxLength: 6 }), weight: 1 },
            { arbitrary: junk, weight: 1 }
          ),
          features,
          extra: fc.string(),
        },
        { requiredKeys: ['session_id', 'sdk_type', 'captured_at', 'signals', 'features'] }
      ),
    },
    { weight: 1, arbitrary: fc.record({ session_id: uuid, sdk_type: fc.constant('web') }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.array(fc.integer(), { maxLength: 2 }) },
    { weight: 1, arbitrary: junk }
  )
  .map((x) => JSON.parse(JSON.stringify(x)))

describe('the whole-body fast path', () => {
  const slowSchema = ingestBodySchema(() => NOW)
  const wrappedSchema = ingestBody(() => NOW)
  const sameBody = (a: Record<string, unknown>, b: Record<string, unknown>) => {
    expect(Object.keys(a)).toEqual(Object.keys(b))
    expect(a.session_id).toBe(b.session_id)
    expect(a.sdk_type).toBe(b.sdk_type)
    expect((a.captured_at as Date).getTime()).toBe((b.captured_at as Date).getTime())
    expect(identical(a.signals as unknown[], b.signals as unknown[])).toBe(true)
    expect((a.features as number[]).every((f, i) => Object.is(f, (b.features as number[])[i]))).toBe(true)
    expect((a.features as number[]).length).toBe((b.features as number[]).length)
  }
  it('accepts only what valibot accepts, with valibot’s exact output; valibot words every error (property)', () => {
    let fastAccepted = 0
    fc.assert(
      fc.property(wholeBody, (input) => {
        const slow = v.safeParse(slowSchema, input)
        const fast = fastIngestBody(input, NOW)
        if (fast) {
          fastAccepted++
          expect(slow.success).toBe(true)
          sameBody(fast, slow.output as Record<string, unknown>)
        }
        // Through Standard Schema, as Elysia (and routeSchema) call it.
        const wrapped = wrappedSchema['~standard'].validate(input) as { value?: unknown; issues?: v.BaseIssue<unknown>[] }
        expect(!wrapped.issues).toBe(slow.success)
        if (!slow.success)
          expect(wrapped.issues!.map((i) => [v.getDotPath(i), i.message])).toEqual(slow.issues.map((i) => [v.getDotPath(i), i.message]))
        else sameBody(wrapped.value as Record<string, unknown>, slow.output as Record<string, unknown>)
      }),
      { numRuns: 3000 }
    )
    expect(fastAccepted).toBeGreaterThan(100)
  })
})
