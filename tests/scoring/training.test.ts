import { describe, expect, it } from 'bun:test'
import { treeMargin } from '../../src/scoring/inference'
import { fitGbdt } from '../../ml/training/gbdt'
import { brier, expectedCalibrationError, rocAuc, tprAtFpr } from '../../ml/training/metrics'
import { fitWeightedPlatt } from '../../ml/training/real'

const SMALL = { trees: 25, depth: 3, learningRate: 0.1, minLeaf: 10, lambda: 1, subsample: 0.8, bins: 64 }

describe('metrics', () => {
  it('ROC AUC: perfect, reversed, tied', () => {
    expect(rocAuc([0.9, 0.8], [0.1, 0.2])).toBe(1)
    expect(rocAuc([0.1, 0.2], [0.9, 0.8])).toBe(0)
    expect(rocAuc([0.5, 0.5], [0.5])).toBe(0.5)
  })

  it('TPR at 1% FPR flags bots below the 1st percentile of humans', () => {
    const humans = Array.from({ length: 100 }, (_, i) => 0.5 + i / 200)
    expect(tprAtFpr(humans, [0.1, 0.2, 0.6, 0.9])).toBe(0.5)
  })

  it('Brier and ECE', () => {
    expect(brier([1, 0], [1, 0])).toBe(0)
    expect(brier([0.5, 0.5], [1, 0])).toBe(0.25)
    expect(expectedCalibrationError([0.75, 0.75, 0.75, 0.75], [1, 1, 1, 0])).toBeCloseTo(0, 12)
    expect(expectedCalibrationError([0.95, 0.95], [0, 0])).toBeCloseTo(0.95, 12)
  })
})

describe('boosted trees and calibration', () => {
  it('learn a threshold rule and turn margins into calibrated probabilities', () => {
    const x = Array.from({ length: 400 }, (_, i) => [i % 20, (i * 7) % 13])
    const y = x.map(([a]) => (a >= 10 ? 1 : 0))
    const fitted = fitGbdt(x, y, { ...SMALL, depth: 2, minLeaf: 5, seed: 1 })
    const m = (r: number[]) => treeMargin({ base_score: fitted.base, trees: fitted.trees }, r)
    expect(m([15, 3])).toBeGreaterThan(2)
    expect(m([4, 3])).toBeLessThan(-2)
    expect(fitted.trees[0].threshold[0]).toBe(9)
    const platt = fitWeightedPlatt(
      x.map(m),
      y,
      y.map(() => 1)
    )
    expect(platt.a).toBeGreaterThan(0)
    expect(Number.isFinite(platt.b)).toBe(true)
  })
})
