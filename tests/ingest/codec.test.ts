import { describe, expect, it } from 'bun:test'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import fc from 'fast-check'
import * as v from 'valibot'
import { humanSession } from '../../ml/synth/human'
import { createRng } from '../../ml/synth/prng'
import { KEY_CLASSES, SIGNAL_KINDS, type Signal } from '../../src/scoring/signals'
import { encodeColumns, packSignals, unpackSignals } from '../../src/server/modules/ingest/codec'
import { SignalEvent } from '../../src/server/modules/ingest/model'

/** Same keys in the same order and every value identical by Object.is (so −0 ≠ 0, 1 ≠ true). */
function expectIdentical(got: Signal[], want: Signal[]) {
  expect(got.length).toBe(want.length)
  for (let i = 0; i < want.length; i++) {
    const a = got[i] as Record<string, unknown>
    const b = want[i] as Record<string, unknown>
    expect(Object.keys(a)).toEqual(Object.keys(b))
    for (const key of Object.keys(b)) if (!Object.is(a[key], b[key])) throw new Error(`event ${i}.${key}: ${a[key]} ≠ ${b[key]}`)
  }
}

const anyNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5000, max: 5000 }),
  fc.integer({ min: -5_000_000, max: 5_000_000 }).map((n) => n / 1000),
  fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 10),
  fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 60, Number.MIN_VALUE, 0.1 + 0.2)
)
const anyTime = fc.oneof(
  fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 10_000_000 }),
  fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 10),
  fc.constantFrom(-0, 0)
)

/** Raw events as a client might send them: every optional field present or absent, plus junk keys. */
const rawEvent = fc.record(
  {
    t: anyTime,
    k: fc.constantFrom(...SIGNAL_KINDS),
    x: anyNumber,
    y: anyNumber,
    dy: anyNumber,
    kc: fc.constantFrom(...KEY_CLASSES),
    tr: fc.boolean(),
    ox: anyNumber,
    oy: anyNumber,
    p: anyNumber,
    r: anyNumber,
    n: anyNumber,
    sc: fc.constantFrom(0, 1, true, false),
    junk: fc.string(),
  },
  { requiredKeys: ['t', 'k'] }
)

describe('packed signals (session_batches.packed)', () => {
  it('decode(encode(validated signals)) is the validated signals, exactly (property)', () => {
    fc.assert(
      fc.property(fc.array(rawEvent, { maxLength: 60 }), fc.integer({ min: 0, max: 9 }), (raw, level) => {
        // What ingest stores is valibot's output (unknown keys dropped, keys in the schema's order).
        const validated = raw.map((e) => v.parse(SignalEvent, e) as Signal)
        expectIdentical(unpackSignals(packSignals(validated, level)), validated)
      }),
      { numRuns: 500 }
    )
  })

  it('round-trips a realistic human stream and stores it in a fraction of its JSON size', () => {
    const rng = createRng(3)
    const signals: Signal[] = []
    // Through the schema, as ingest stores them (keys in the schema's order).
    while (signals.length < 2000) for (const s of humanSession(rng)) signals.push(v.parse(SignalEvent, s) as Signal)
    const packed = packSignals(signals)
    expectIdentical(unpackSignals(packed), signals)
    expect(packed.length).toBeLessThan(JSON.stringify(signals).length / 4)
    console.log(`2,000 human signals: JSON ${JSON.stringify(signals).length} B, packed ${packed.length} B`)
  })

  it('reads batches stored before the switch to Bun.deflateSync (node:zlib deflateRawSync), exactly', () => {
    const rng = createRng(5)
    const signals = humanSession(rng).map((s) => v.parse(SignalEvent, s) as Signal)
    const packed = packSignals(signals)
    // The same columns deflated the former way: the version byte, then node:zlib's raw deflate.
    const old = deflateRawSync(inflateRawSync(packed.subarray(1)), { level: 1 })
    expectIdentical(unpackSignals(Uint8Array.of(packed[0]!, ...old)), signals)
  })

  it('keeps the columns layout byte for byte: the retry key hashes it (sql/0016)', () => {
    // As the encoder wrote it when sql/0016 made it the retry key. A change here would leave retries of
    // batches stored before it unrecognised: a new layout needs a new hash form (the old one still accepted).
    const batch = [
      { t: 0, k: 'mm', x: 10, y: 20 },
      { t: 16.5, k: 'mm', x: 12.25, y: -3, p: 0.5, n: 2 },
      { t: 33, k: 'md', x: 12, y: -0 },
      { t: 40.123, k: 'kd', kc: 'char', tr: false },
      { t: 41, k: 'ku', kc: 'enter' },
      { t: 1e6, k: 's', dy: 0.1 + 0.2, sc: true },
      { t: 1e6 + 1, k: 's', dy: -120, sc: 0, ox: 3, oy: 4, r: 1 / 3 },
    ] as Signal[]
    expect(Buffer.from(encodeColumns(batch)).toString('hex')).toBe(
      '07000001040506060383050318088408e40a00d1148002b3fa0610f0c2d00710a001921c00c002e80204000000000000008004343333333333d33ff80e00030030405104555555555555d53f200300'
    )
    expect(inflateRawSync(packSignals(batch).subarray(1))).toEqual(Buffer.from(encodeColumns(batch)))
  })

  it('an empty batch round-trips', () => {
    expect(unpackSignals(packSignals([]))).toEqual([])
  })

  it('refuses bytes it did not write rather than inventing signals', () => {
    const packed = packSignals([{ t: 1, k: 'mm', x: 2, y: 3 }])
    expect(() => unpackSignals(Uint8Array.of(9, ...packed.subarray(1)))).toThrow(/unknown format/)
    expect(() => unpackSignals(packed.subarray(0, 3))).toThrow()
  })
})
