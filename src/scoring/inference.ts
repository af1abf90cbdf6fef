// Tree ensembles as stored in model/*.json, and their evaluation: a sum of
// depth-limited regression trees (the log-odds that the session is human)
// mapped to a probability by Platt calibration.

/** node i is a leaf when feature[i] < 0; else x[feature[i]] <= threshold[i] goes left */
export type Tree = { feature: number[]; threshold: number[]; left: number[]; right: number[]; value: number[] }

export function treeMargin(model: { base_score: number; trees: readonly Tree[] }, x: ArrayLike<number>): number {
  let margin = model.base_score
  for (const tree of model.trees) {
    let node = 0
    while (tree.feature[node] >= 0) node = x[tree.feature[node]] <= tree.threshold[node] ? tree.left[node] : tree.right[node]
    margin += tree.value[node]
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
 * features of the stored signals (session-features.ts) and one for the
 * pointer part of the 34-number client vector (scoreFeatures without
 * signals). Keyboard, scroll, touch and click evidence are rules
 * (evidence.ts), so they have no trees.
 */
export type M4Model = {
  model_version: string
  target: string
  pointer: TreeEnsemble
  vector_pointer: TreeEnsemble & { feature_index: number[] }
  training: Record<string, unknown>
}

/** calibrated log-odds: a·margin + b */
export function calibratedLogit(e: TreeEnsemble, x: ArrayLike<number>, touch = false): number {
  const { a, b, b_touch } = e.calibration
  return a * treeMargin(e, x as readonly number[]) + (touch && b_touch !== undefined ? b_touch : b)
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
