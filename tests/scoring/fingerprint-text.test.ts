// The fingerprint hashes its strokes' text without building it (fingerprint.ts shapesHash); every stored
// `tf1:`/`tt1:` value was made from the text itself, so the two must agree on every path. The reference below
// is the former code: the text built and hashed whole.
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { loadReal } from '../../ml/data/load'
import { pointerStrokes } from '../../src/scoring/features'
import { shapesHash, touchStrokes } from '../../src/scoring/fingerprint'

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
const reference = (strokes: readonly Path[]) => hash64(strokes.map(strokeShape).join('|'))

describe('the fingerprint hashed as it goes', () => {
  it('gives every real recording’s strokes the hash their text gave', () => {
    let hashed = 0
    for (const s of [...loadReal('sapimouse'), ...loadReal('delbot')]) {
      for (const strokes of [pointerStrokes(s.signals), touchStrokes(s.signals)]) {
        if (!strokes.length) continue
        // whole sessions and the first three strokes, as a fingerprint takes them
        expect(shapesHash(strokes)).toBe(reference(strokes))
        expect(shapesHash(strokes.slice(0, 3))).toBe(reference(strokes.slice(0, 3)))
        hashed++
      }
    }
    expect(hashed).toBeGreaterThan(1000)
  }, 30_000)

  it('agrees on arbitrary strokes: negative, fractional, huge and far-apart positions, single samples', () => {
    const coord = fc.oneof(
      fc.integer({ min: -5000, max: 5000 }),
      fc.double({ min: -1e4, max: 1e4, noNaN: true }),
      fc.constantFrom(-1e300, 1e300, 2 ** 53, -(2 ** 60), 1e21, 999_999_999.5, -1e9, 1e9, -1, 0.75),
      fc.double({ noNaN: true, noDefaultInfinity: true })
    )
    const stroke = fc.array(fc.tuple(coord, coord), { minLength: 1, maxLength: 40 }).map((points) => ({
      x: points.map((p) => p[0]),
      y: points.map((p) => p[1]),
    }))
    fc.assert(
      fc.property(fc.array(stroke, { maxLength: 6 }), (strokes) => {
        expect(shapesHash(strokes)).toBe(reference(strokes))
      }),
      { numRuns: 3000 }
    )
  })
})
