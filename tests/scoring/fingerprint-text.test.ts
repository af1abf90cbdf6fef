// The fingerprint hashes its trajectory's text without building it (fingerprint.ts shapesHash); every stored
// `tf1:`/`tt1:` value was made from the text itself, so the two must agree on every path. The reference below
// is the former code: the text built and hashed whole.
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { loadReal } from '../../ml/data/load'
import { pointerStrokes } from '../../src/scoring/features'
import { touchStrokes, trajectoryFingerprint } from '../../src/scoring/fingerprint'
import type { Signal } from '../../src/scoring/signals'

type Path = { readonly x: ArrayLike<number>; readonly y: ArrayLike<number> }
const step = (v: ArrayLike<number>, i: number) => Math.floor(v[i] - v[i - 1] + 0.25)
function strokeShape({ x, y }: Path): string {
  const parts: string[] = []
  for (let i = 1; i < x.length; i++) parts.push(`${step(x, i)},${step(y, i)}`)
  return parts.join(';')
}
function hash64(text: string): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0')
}
function longest<T extends Path>(strokes: readonly T[], count: number): T[] {
  return strokes
    .map((stroke, order) => ({ stroke, order }))
    .sort((a, b) => b.stroke.x.length - a.stroke.x.length || a.order - b.order)
    .slice(0, count)
    .sort((a, b) => a.order - b.order)
    .map((s) => s.stroke)
}
const moves = (strokes: readonly Path[]) => strokes.reduce((n, s) => n + s.x.length - 1, 0)
function informative(strokes: readonly Path[]): number {
  let n = 0
  for (const { x, y } of strokes) {
    let px = 0
    let py = 0
    for (let i = 1; i < x.length; i++) {
      const dx = step(x, i)
      const dy = step(y, i)
      if (dx !== px || dy !== py) n++
      px = dx
      py = dy
    }
  }
  return n
}
function reference(signals: readonly Signal[]): string | null {
  const pointer = longest(pointerStrokes(signals), 3)
  if (moves(pointer) >= 30) return `tf1:${hash64(pointer.map(strokeShape).join('|'))}`
  const touch = longest(touchStrokes(signals), 5)
  if (informative(touch) >= 20) return `tt1:${hash64(touch.map(strokeShape).join('|'))}`
  return null
}

describe('the fingerprint hashed as it goes', () => {
  it('gives every real recording the fingerprint its text gave', () => {
    let printed = 0
    for (const s of [...loadReal('sapimouse'), ...loadReal('delbot')]) {
      const print = trajectoryFingerprint(s.signals)
      expect(print).toBe(reference(s.signals))
      if (print) printed++
    }
    expect(printed).toBeGreaterThan(1000)
  }, 30_000)

  it('agrees on arbitrary paths, mouse or touch: negative, fractional, huge and far-apart positions', () => {
    const coord = fc.oneof(
      fc.integer({ min: -5000, max: 5000 }),
      fc.double({ min: -1e4, max: 1e4, noNaN: true }),
      fc.constantFrom(-1e300, 1e300, 2 ** 53, -(2 ** 60), 1e21, 999_999_999.5, -1e9, 1e9),
      fc.double({ noNaN: true, noDefaultInfinity: true })
    )
    // mouse positions past 1e6 px are not read (features.ts), touch ones are: both kinds of session
    const session = (kinds: string[]) =>
      fc.array(fc.record({ k: fc.constantFrom(...kinds), x: coord, y: coord, dt: fc.integer({ min: 0, max: 400 }) }), {
        minLength: 30,
        maxLength: 200,
      })
    fc.assert(
      fc.property(fc.oneof(session(['mm', 'mm', 'mm', 'md']), session(['ts', 'tm', 'tm', 'tm', 'te'])), (events) => {
        let t = 0
        const signals: Signal[] = events.map(({ k, x, y, dt }) => {
          t += dt
          return { t, k, x, y } as Signal
        })
        expect(trajectoryFingerprint(signals)).toBe(reference(signals))
      }),
      { numRuns: 2000 }
    )
  })
})
