// Platt scaling: p = sigmoid(a·margin + b), fitted by Newton's method with
// backtracking on a split the trees never saw (Platt 1999; Lin, Lin & Weng
// 2007 for the numerics). Targets are Platt's smoothed labels, so a perfectly
// separated calibration split still gives finite a and b.
import { sigmoid } from '../../src/scoring/inference'

const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)))

export function fitPlatt(margins: readonly number[], labels: readonly number[]): { a: number; b: number } {
  const pos = labels.reduce((s, v) => s + v, 0)
  const neg = labels.length - pos
  const hi = (pos + 1) / (pos + 2)
  const lo = 1 / (neg + 2)
  const target = labels.map((v) => (v ? hi : lo))
  const loss = (a: number, b: number) => {
    let s = 0
    for (let i = 0; i < margins.length; i++) {
      const z = a * margins[i] + b
      s += target[i] * softplus(-z) + (1 - target[i]) * softplus(z)
    }
    return s
  }
  let a = 0
  let b = Math.log((pos + 1) / (neg + 1))
  let current = loss(a, b)
  for (let iter = 0; iter < 100; iter++) {
    let ga = 0
    let gb = 0
    let haa = 1e-12
    let hab = 0
    let hbb = 1e-12
    for (let i = 0; i < margins.length; i++) {
      const q = sigmoid(a * margins[i] + b)
      const r = q - target[i]
      const w = q * (1 - q)
      ga += r * margins[i]
      gb += r
      haa += w * margins[i] * margins[i]
      hab += w * margins[i]
      hbb += w
    }
    if (Math.abs(ga) < 1e-9 && Math.abs(gb) < 1e-9) break
    const det = haa * hbb - hab * hab
    const da = -(hbb * ga - hab * gb) / det
    const db = -(-hab * ga + haa * gb) / det
    let step = 1
    while (step > 1e-10 && loss(a + step * da, b + step * db) > current + 1e-4 * step * (ga * da + gb * db)) step /= 2
    if (step <= 1e-10) break
    a += step * da
    b += step * db
    current = loss(a, b)
  }
  return { a, b }
}
