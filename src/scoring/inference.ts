// Tree ensembles as stored in model/*.json, and their evaluation: a sum of
// depth-limited regression trees (the log-odds that the session is human)
// mapped to a probability by Platt calibration.

/** node i is a leaf when feature[i] < 0; else x[feature[i]] <= threshold[i] goes left */
export type Tree = { feature: number[]; threshold: number[]; left: number[]; right: number[]; value: number[] }

/** an ensemble's trees laid out flat in typed arrays, node indices absolute: the same walk, without an object per tree */
type FlatTrees = {
  roots: Int32Array
  feature: Int32Array
  threshold: Float64Array
  left: Int32Array
  right: Int32Array
  value: Float64Array
}
const flatCache = new WeakMap<readonly Tree[], FlatTrees>()

function flatten(trees: readonly Tree[]): FlatTrees {
  const nodes = trees.reduce((n, t) => n + t.feature.length, 0)
  const out: FlatTrees = {
    roots: new Int32Array(trees.length),
    feature: new Int32Array(nodes),
    threshold: new Float64Array(nodes),
    left: new Int32Array(nodes),
    right: new Int32Array(nodes),
    value: new Float64Array(nodes),
  }
  let at = 0
  trees.forEach((t, k) => {
    out.roots[k] = at
    for (let i = 0; i < t.feature.length; i++) {
      out.feature[at + i] = t.feature[i]
      out.threshold[at + i] = t.threshold[i]
      out.left[at + i] = at + t.left[i]
      out.right[at + i] = at + t.right[i]
      out.value[at + i] = t.value[i]
    }
    at += t.feature.length
  })
  flatCache.set(trees, out)
  return out
}

/**
 * base_score plus each tree's leaf, in tree order (so the same bits as walking the stored objects). The
 * stroke trees run this 32 times a session: over the flat arrays it costs a fraction of the object walk.
 */
export function treeMargin(model: { base_score: number; trees: readonly Tree[] }, x: ArrayLike<number>): number {
  const { roots, feature, threshold, left, right, value } = flatCache.get(model.trees) ?? flatten(model.trees)
  let margin = model.base_score
  for (let k = 0; k < roots.length; k++) {
    let node = roots[k]
    while (feature[node] >= 0) node = x[feature[node]] <= threshold[node] ? left[node] : right[node]
    margin += value[node]
  }
  return margin
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

/** a tree ensemble over named features; margin = log-odds that the session is human */
export type TreeEnsemble = {
  feature_names: string[]
  base_score: number
  trees: Tree[]
  /** b_touch, when given, replaces b for sessions whose strokes are mostly touch (their own human-protecting shift) */
  calibration: { method: 'platt'; a: number; b: number; b_touch?: number }
}

/**
 * The M4 model (model/m4-*.json): one calibrated ensemble for the pointer
 * features of the stored signals (session-features.ts), stroke trees whose
 * evidence adds to its margin (since m4-2026.11.29), and one ensemble for the
 * pointer part of the 34-number client vector (scoreFeatures without
 * signals). Keyboard, scroll, touch and click evidence are rules
 * (evidence.ts), so they have no trees.
 */
export type M4Model = {
  model_version: string
  target: string
  pointer: TreeEnsemble
  /** trees over single strokes, whose evidence adds to the pointer ensemble's margin (strokeTerm); models before m4-2026.11.29 have none */
  stroke?: StrokeTrees
  vector_pointer: TreeEnsemble & { feature_index: number[] }
  training: Record<string, unknown>
}

/**
 * Trees over one stroke's statistics (session-features.ts, STROKE_FEATURE_NAMES). A session's strokes
 * are evidence one after another: their mean margin times weight·√min(strokes, cap) adds to the pointer
 * ensemble's margin, so a session of many strokes that each look scripted weighs more than one stroke, and
 * the cap keeps strokes of one hand from counting as independent witnesses without end.
 */
export type StrokeTrees = { feature_names: string[]; base_score: number; trees: Tree[]; weight: number; cap: number }

/** a mean over a session's scored strokes (a margin, or one feature's contribution to it) weighted as the pointer margin takes it: weight·√min(counted, cap) */
export function strokeShare(s: Pick<StrokeTrees, 'weight' | 'cap'>, counted: number, mean: number): number {
  return mean * s.weight * Math.sqrt(Math.min(counted, s.cap))
}

/** the strokes' share of the pointer margin (0 without stroke trees or strokes); `counted` is the session's stroke count */
export function strokeTerm(s: StrokeTrees | undefined, strokes: readonly (readonly number[])[], counted: number): number {
  if (!s || !strokes.length) return 0
  let sum = 0
  for (const x of strokes) sum += treeMargin(s, x)
  return strokeShare(s, counted, sum / strokes.length)
}

/** calibrated log-odds: a·(margin + extra) + b; `extra` is the strokes' term of a pointer ensemble */
export function calibratedLogit(e: TreeEnsemble, x: ArrayLike<number>, touch = false, extra = 0): number {
  const { a, b, b_touch } = e.calibration
  return a * (treeMargin(e, x as readonly number[]) + extra) + (touch && b_touch !== undefined ? b_touch : b)
}

/**
 * Per-feature contributions to the margin (Saabas): along each tree's path,
 * the change of node value at a split is credited to the split's feature.
 * Needs trees whose internal nodes keep their values (M4 trees do).
 */
export function treeContributions(e: Pick<TreeEnsemble, 'trees' | 'feature_names'>, x: ArrayLike<number>): Float64Array {
  const out = new Float64Array(e.feature_names.length)
  for (const tree of e.trees) {
    let node = 0
    while (tree.feature[node] >= 0) {
      const f = tree.feature[node]
      const next = x[f] <= tree.threshold[node] ? tree.left[node] : tree.right[node]
      out[f] += tree.value[next] - tree.value[node]
      node = next
    }
  }
  return out
}
