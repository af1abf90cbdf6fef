// Evaluation metrics. Scores passed in are P(human); "bots caught" uses the
// bot side (1 − P(human)).

/** ROC AUC that a bot scores lower than a human (ties count half), by ranks */
export function rocAuc(humanScores: readonly number[], botScores: readonly number[]): number {
  const all = [...humanScores.map((s) => ({ s, human: true })), ...botScores.map((s) => ({ s, human: false }))].sort((p, q) => p.s - q.s)
  let rankSumBots = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j < all.length && all[j].s === all[i].s) j++
    const rank = (i + j + 1) / 2
    for (let k = i; k < j; k++) if (!all[k].human) rankSumBots += rank
    i = j
  }
  const nb = botScores.length
  const nh = humanScores.length
  const botsBelow = rankSumBots - (nb * (nb + 1)) / 2
  return 1 - botsBelow / (nb * nh)
}

/** share of bots flagged when the threshold flags at most `fpr` of humans */
export function tprAtFpr(humanScores: readonly number[], botScores: readonly number[], fpr = 0.01): number {
  const sorted = [...humanScores].sort((a, b) => a - b)
  const threshold = sorted[Math.floor(fpr * sorted.length)]
  return botScores.filter((s) => s < threshold).length / botScores.length
}

export function brier(probs: readonly number[], labels: readonly number[]): number {
  let s = 0
  for (let i = 0; i < probs.length; i++) s += (probs[i] - labels[i]) ** 2
  return s / probs.length
}

/** expected calibration error over equal-width probability bins */
export function expectedCalibrationError(probs: readonly number[], labels: readonly number[], bins = 10): number {
  const count = new Array<number>(bins).fill(0)
  const sumP = new Array<number>(bins).fill(0)
  const sumY = new Array<number>(bins).fill(0)
  for (let i = 0; i < probs.length; i++) {
    const b = Math.min(bins - 1, Math.floor(probs[i] * bins))
    count[b]++
    sumP[b] += probs[i]
    sumY[b] += labels[i]
  }
  let ece = 0
  for (let b = 0; b < bins; b++) if (count[b]) ece += (count[b] / probs.length) * Math.abs(sumP[b] / count[b] - sumY[b] / count[b])
  return ece
}
