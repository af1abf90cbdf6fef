import { describe, expect, it } from 'bun:test'
import { strokeTerm, treeMargin } from '../../src/scoring/inference'
import { STROKE_FEATURE_NAMES } from '../../src/scoring/session-features'
import { fitGbdt } from '../../ml/training/gbdt'
import { brier, expectedCalibrationError, rocAuc, tprAtFpr } from '../../ml/training/metrics'
import { fitStrokes, fitWeightedPlatt, type Row, STROKE_CAP, STROKE_WEIGHT } from '../../ml/training/real'

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

describe('stroke trees (fitStrokes)', () => {
  // rows whose strokes carry the label in their first statistic: humans' strokes wiggle (1), bots' do not (0)
  const row = (human: 0 | 1, i: number): Row => ({
    human,
    family: human ? 'sapimouse' : 'linear_constant',
    source: human ? 'sapimouse' : 'synth',
    fold: human ? i % 5 : -1,
    pointer: [0],
    vector: null,
    strokes: Array.from({ length: 1 + (i % 40) }, (_, k) => [human, (i * 7 + k) % 13, ...Array(STROKE_FEATURE_NAMES.length - 2).fill(0)]),
    counted: 1 + (i % 40),
  })
  const rows = [...Array.from({ length: 120 }, (_, i) => row(1, i)), ...Array.from({ length: 120 }, (_, i) => row(0, i))]
  const params = { ...SMALL, trees: 10 }
  it('learn what single strokes say, named as the session features that summarise them', () => {
    const trees = fitStrokes(rows, () => true, 7, params)
    expect(trees.feature_names).toEqual([...STROKE_FEATURE_NAMES])
    expect(trees.weight).toBe(STROKE_WEIGHT)
    expect(trees.cap).toBe(STROKE_CAP)
    const human = row(1, 3).strokes
    const bot = row(0, 3).strokes
    expect(strokeTerm(trees, human, human.length)).toBeGreaterThan(0)
    expect(strokeTerm(trees, bot, bot.length)).toBeLessThan(0)
  })
  it('the same rows and seed give the same trees; rows the filter drops or without strokes take no part', () => {
    expect(fitStrokes(rows, () => true, 7, params)).toEqual(fitStrokes(rows, () => true, 7, params))
    const empty = rows.map((r) => (r.human ? r : { ...r, strokes: [] }))
    // no bot stroke left: every stroke is human, nothing to split on
    expect(fitStrokes(empty, () => true, 7, params).trees.every((t) => t.feature[0] < 0)).toBe(true)
  })
})
