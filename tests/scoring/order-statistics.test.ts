import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { median, quantile, selectKth, sortedOf } from '../../src/scoring/order-statistics'

// The features (and the model trained on them) depend on these values to the bit: selection must give what
// sorting gave, on samples like the extractors' (gaps on a few clock ticks, many equal values), signed zeros
// and infinities included.
const value = fc.oneof(
  fc.constantFrom(0, -0, 1, 8, 16, 16.7, 33.3, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.integer({ min: -50, max: 50 }),
  fc.integer({ min: 0, max: 2000 }).map((n) => n / 10),
  fc.double({ noNaN: true })
)
const sample = fc.array(value, { minLength: 0, maxLength: 300 })

describe('order statistics', () => {
  it('selectKth gives the value a sort puts at k (−0 and 0 alike), with nothing smaller after it', () => {
    fc.assert(
      fc.property(
        sample.filter((a) => a.length > 0),
        fc.nat(),
        (a, at) => {
          const k = at % a.length
          const b = Float64Array.from(a)
          const got = selectKth(b, b.length, k)
          expect(got === sortedOf(a)[k]).toBe(true)
          for (let i = k + 1; i < b.length; i++) expect(b[i] >= got).toBe(true)
        }
      ),
      { numRuns: 500 }
    )
  })

  it('selectKth gives the same value when it runs out of partition rounds and sorts the rest', () => {
    fc.assert(
      fc.property(
        sample.filter((a) => a.length > 0),
        fc.nat(),
        fc.integer({ min: 0, max: 3 }),
        (a, at, rounds) => {
          const k = at % a.length
          const b = Float64Array.from(a)
          const got = selectKth(b, b.length, k, rounds)
          expect(got === sortedOf(a)[k]).toBe(true)
          for (let i = k + 1; i < b.length; i++) expect(b[i] >= got).toBe(true)
        }
      ),
      { numRuns: 500 }
    )
  })

  it('median is quantile(sorted, 0.5), bit for bit', () => {
    fc.assert(
      fc.property(sample, (a) => {
        expect(Object.is(median(a), quantile(sortedOf(a), 0.5))).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it('median with a NaN among the values answers as the sort does (NaN last)', () => {
    fc.assert(
      fc.property(sample, fc.nat(), (a, at) => {
        const withNaN = [...a]
        withNaN.splice(at % (a.length + 1), 0, Number.NaN)
        expect(Object.is(median(withNaN), quantile(sortedOf(withNaN), 0.5))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it('median of the first n values of a buffer is the median of those values alone', () => {
    fc.assert(
      fc.property(sample, sample, (a, rest) => {
        const buffer = Float64Array.from([...a, ...rest])
        expect(Object.is(median(buffer, a.length), quantile(sortedOf(a), 0.5))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it('median leaves its argument as it was', () => {
    const a = [5, 1, 4, 1, 3]
    expect(median(a)).toBe(3)
    expect(a).toEqual([5, 1, 4, 1, 3])
  })
})
