// The public libraries draw from Math.random() and read Date.now(). To keep every
// generated session a pure function of its seed, a library call runs with both
// replaced for its (synchronous) duration and restored afterwards, even on throw.
import type { Rng } from '../synth/prng'

/** runs `fn` with Math.random() drawing from `rng` and Date.now() reading `clock()` */
export function withSeededGlobals<T>(rng: Rng, clock: () => number, fn: () => T): T {
  const random = Math.random
  const now = Date.now
  Math.random = () => rng.next()
  Date.now = () => Math.floor(clock())
  try {
    return fn()
  } finally {
    Math.random = random
    Date.now = now
  }
}

export const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v))

/** inverse of the standard normal CDF (Acklam's rational approximation, |rel. error| < 1.2e-9) */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const q = Math.min(1 - 1e-12, Math.max(1e-12, p))
  const lo = 0.02425
  if (q < lo) {
    const r = Math.sqrt(-2 * Math.log(q))
    return (
      (((((c[0]! * r + c[1]!) * r + c[2]!) * r + c[3]!) * r + c[4]!) * r + c[5]!) /
      ((((d[0]! * r + d[1]!) * r + d[2]!) * r + d[3]!) * r + 1)
    )
  }
  if (q > 1 - lo) return -normalQuantile(1 - q)
  const s = q - 0.5
  const r = s * s
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * s) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  )
}

/** standard normal CDF */
export function normalCdf(z: number): number {
  // Abramowitz–Stegun 7.1.26 on erf(z/√2)
  const x = Math.abs(z) / Math.SQRT2
  const k = 1 / (1 + 0.3275911 * x)
  const poly = ((((1.061405429 * k - 1.453152027) * k + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k
  const erf = 1 - poly * Math.exp(-x * x)
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf)
}

export function median(values: readonly number[]): number {
  if (!values.length) return NaN
  const s = Float64Array.from(values).sort()
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** coefficient of variation (population sd / mean) */
export function cv(values: readonly number[]): number {
  if (values.length < 2) return NaN
  const mean = values.reduce((s, v) => s + v, 0) / values.length
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length
  return Math.sqrt(variance) / mean
}

/** linear-interpolated quantile of a sample (type 7) */
export function quantile(values: readonly number[], p: number): number {
  const s = Float64Array.from(values).sort()
  if (!s.length) return NaN
  const h = (s.length - 1) * p
  const lo = Math.floor(h)
  return s[lo]! + (h - lo) * (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!)
}
