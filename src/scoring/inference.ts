// The M3 model as stored in model/*.json, and its evaluation: a sum of
// depth-limited regression trees (the log-odds that the session is human)
// mapped to a probability by Platt calibration.

/** node i is a leaf when feature[i] < 0; else x[feature[i]] <= threshold[i] goes left */
export type Tree = { feature: number[]; threshold: number[]; left: number[]; right: number[]; value: number[] }

export type M3Model = {
  model_version: string
  feature_version: string
  feature_names: string[]
  /** what the model predicts: the probability that the session is human */
  target: string
  base_score: number
  calibration: { method: 'platt'; a: number; b: number }
  training: Record<string, unknown>
  trees: Tree[]
}

export function treeMargin(model: Pick<M3Model, 'base_score' | 'trees'>, x: readonly number[]): number {
  let margin = model.base_score
  for (const tree of model.trees) {
    let node = 0
    while (tree.feature[node] >= 0) node = x[tree.feature[node]] <= tree.threshold[node] ? tree.left[node] : tree.right[node]
    margin += tree.value[node]
  }
  return margin
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))

export function humanProbability(model: M3Model, x: readonly number[]): number {
  const { a, b } = model.calibration
  return sigmoid(a * treeMargin(model, x) + b)
}
