import { describe, expect, it } from 'bun:test'
import { humanProbability, treeMargin } from '../../src/scoring/inference'
import { fitPlatt } from '../../ml/training/calibration'
import { fitGbdt } from '../../ml/training/gbdt'
import { brier, expectedCalibrationError, rocAuc, tprAtFpr } from '../../ml/training/metrics'
import { DEFAULT_PARAMS, buildDataset, serializeModel, trainModel } from '../../ml/training/pipeline'

const SMALL = { ...DEFAULT_PARAMS, trees: 25 }

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
    const platt = fitPlatt(x.map(m), y)
    expect(platt.a).toBeGreaterThan(0)
    expect(Number.isFinite(platt.b)).toBe(true)
  })

  it('training is reproducible to the byte, and the seed matters', () => {
    const data = buildDataset(3, { humans: 120, botsPerFamily: 12 })
    const once = serializeModel(trainModel(data, { version: 'test', seed: 9, params: SMALL }))
    const twice = serializeModel(
      trainModel(buildDataset(3, { humans: 120, botsPerFamily: 12 }), { version: 'test', seed: 9, params: SMALL })
    )
    expect(twice).toBe(once)
    expect(serializeModel(trainModel(data, { version: 'test', seed: 10, params: SMALL }))).not.toBe(once)
  })

  it('a small model already separates humans from bots on held-out sessions', () => {
    const data = buildDataset(21, { humans: 200, botsPerFamily: 20 })
    const model = trainModel(data, { version: 'test', seed: 1, params: SMALL })
    const test = data.filter((s) => s.split === 'test')
    const humans = test.filter((s) => s.human).map((s) => humanProbability(model, s.features))
    const bots = test.filter((s) => !s.human && s.family !== 'replay').map((s) => humanProbability(model, s.features))
    expect(rocAuc(humans, bots)).toBeGreaterThan(0.9)
  })
})
