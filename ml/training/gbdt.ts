// Gradient-boosted regression trees for binary log-loss (Friedman 2001,
// second-order leaf values as in XGBoost), with histogram splits on quantile
// bins and seeded row subsampling. Small and deterministic on purpose: the
// same data and seed give the same trees, to the last bit.
import type { Tree } from '../../src/scoring/inference'
import { createRng } from '../synth/prng'

export type GbdtParams = {
  trees: number
  depth: number
  learningRate: number
  /** fewest training rows in a leaf */
  minLeaf: number
  /** L2 penalty on leaf values */
  lambda: number
  /** share of rows each tree is fitted on */
  subsample: number
  /** most bins (candidate thresholds + 1) per feature */
  bins: number
  seed: number
  /** share of features each tree may split on (feature bagging); omitted = all */
  colsample?: number
}

export type FittedGbdt = { base: number; trees: Tree[]; gain: number[] }

/** candidate thresholds: the distinct values, or quantiles of them when there are too many */
function thresholds(values: readonly number[], bins: number): number[] {
  const sorted = [...values].sort((a, b) => a - b)
  const distinct = sorted.filter((v, i) => i === 0 || v !== sorted[i - 1])
  if (distinct.length <= bins) return distinct.slice(0, -1)
  const out: number[] = []
  for (let q = 1; q < bins; q++) {
    const v = sorted[Math.floor((q * sorted.length) / bins)]
    if (v !== out[out.length - 1] && v !== distinct[distinct.length - 1]) out.push(v)
  }
  return out
}

/** index of the first threshold ≥ v (thresholds.length when v is above all) */
function binOf(v: number, thr: readonly number[]): number {
  let lo = 0
  let hi = thr.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (thr[mid] < v) lo = mid + 1
    else hi = mid
  }
  return lo
}

type Split = { feature: number; bin: number; gain: number }

const score = (g: number, h: number, lambda: number) => (g * g) / (h + lambda)

/**
 * `weights` (optional) scale each row's gradient and hessian. With weights
 * (the M4 trainer), internal nodes keep the value they would have as leaves:
 * inference reads only leaves, and the difference along a path is each
 * split's contribution (Saabas), which names what drove a score. Without
 * weights internal values stay 0, so earlier fits are byte-identical.
 */
export function fitGbdt(x: readonly (readonly number[])[], y: readonly number[], p: GbdtParams, weights?: readonly number[]): FittedGbdt {
  const n = x.length
  const d = x[0].length
  const thr = Array.from({ length: d }, (_, f) =>
    thresholds(
      x.map((r) => r[f]),
      p.bins
    )
  )
  const bins = thr.map((t, f) => Uint16Array.from(x, (r) => binOf(r[f], t)))
  const w = weights ?? new Array<number>(n).fill(1)
  let positives = 0
  let total = 0
  for (let i = 0; i < n; i++) {
    positives += y[i] * w[i]
    total += w[i]
  }
  const base = weights ? Math.log(positives / (total - positives)) : Math.log(Math.max(1, positives) / Math.max(1, n - positives))
  const margin = new Float64Array(n).fill(base)
  const grad = new Float64Array(n)
  const hess = new Float64Array(n)
  const rng = createRng(p.seed)
  const trees: Tree[] = []
  const gain = new Array<number>(d).fill(0)
  const allowed = new Uint8Array(d).fill(1)

  const bestSplit = (rows: Uint32Array, g: number, h: number): Split | undefined => {
    let best: Split | undefined
    const parent = score(g, h, p.lambda)
    for (let f = 0; f < d; f++) {
      const nb = thr[f].length + 1
      if (nb < 2 || !allowed[f]) continue
      const hg = new Float64Array(nb)
      const hh = new Float64Array(nb)
      const hc = new Uint32Array(nb)
      const col = bins[f]
      for (const r of rows) {
        hg[col[r]] += grad[r]
        hh[col[r]] += hess[r]
        hc[col[r]]++
      }
      let gl = 0
      let hl = 0
      let cl = 0
      for (let b = 0; b < nb - 1; b++) {
        gl += hg[b]
        hl += hh[b]
        cl += hc[b]
        if (cl < p.minLeaf) continue
        if (rows.length - cl < p.minLeaf) break
        const s = score(gl, hl, p.lambda) + score(g - gl, h - hl, p.lambda) - parent
        if (s > (best?.gain ?? 1e-9)) best = { feature: f, bin: b, gain: s }
      }
    }
    return best
  }

  for (let t = 0; t < p.trees; t++) {
    for (let i = 0; i < n; i++) {
      const q = 1 / (1 + Math.exp(-margin[i]))
      grad[i] = (q - y[i]) * w[i]
      hess[i] = Math.max(q * (1 - q), 1e-12) * w[i]
    }
    const sample: number[] = []
    for (let i = 0; i < n; i++) if (rng.next() < p.subsample) sample.push(i)
    allowed.fill(1)
    if (p.colsample !== undefined && p.colsample < 1) for (let f = 0; f < d; f++) allowed[f] = rng.next() < p.colsample ? 1 : 0
    const tree: Tree = { feature: [], threshold: [], left: [], right: [], value: [] }
    const splitBin: number[] = []

    const grow = (rows: Uint32Array, depth: number): number => {
      const id = tree.feature.length
      let g = 0
      let h = 0
      for (const r of rows) {
        g += grad[r]
        h += hess[r]
      }
      tree.feature.push(-1)
      tree.threshold.push(0)
      tree.left.push(-1)
      tree.right.push(-1)
      tree.value.push((-g / (h + p.lambda)) * p.learningRate)
      splitBin.push(-1)
      const split = depth < p.depth ? bestSplit(rows, g, h) : undefined
      if (!split) return id
      gain[split.feature] += split.gain
      const col = bins[split.feature]
      const left = rows.filter((r) => col[r] <= split.bin)
      const right = rows.filter((r) => col[r] > split.bin)
      tree.feature[id] = split.feature
      tree.threshold[id] = thr[split.feature][split.bin]
      if (!weights) tree.value[id] = 0
      splitBin[id] = split.bin
      tree.left[id] = grow(left, depth + 1)
      tree.right[id] = grow(right, depth + 1)
      return id
    }
    grow(Uint32Array.from(sample), 0)

    for (let i = 0; i < n; i++) {
      let node = 0
      while (tree.feature[node] >= 0) node = bins[tree.feature[node]][i] <= splitBin[node] ? tree.left[node] : tree.right[node]
      margin[i] += tree.value[node]
    }
    trees.push(tree)
  }
  return { base, trees, gain }
}
