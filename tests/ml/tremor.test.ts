import { describe, expect, it } from 'bun:test'
import { loadReal } from '../../ml/data/load'
import { withTremor } from '../../ml/generators/tremor'
import { createRng } from '../../ml/synth/prng'

const recording = loadReal('sapimouse')[0]!.signals

describe('withTremor (the eval’s hand tremor over a real recording)', () => {
  const shaken = withTremor(createRng(5), recording, { amplitudePx: 3, hz: 8 })

  it('moves only the mouse positions, keeps every event, its kind and its time; same seed, same result', () => {
    expect(shaken.length).toBe(recording.length)
    shaken.forEach((e, i) => {
      const o = recording[i]!
      expect(e.t).toBe(o.t)
      expect(e.k).toBe(o.k)
      if (o.k !== 'mm') expect(e).toEqual(o)
    })
    expect(withTremor(createRng(5), recording, { amplitudePx: 3, hz: 8 })).toEqual(shaken)
  })

  it('stays within its size (swelling to 1.4 times it) and oscillates at about its frequency', () => {
    const moves = recording.flatMap((o, i) => (o.k === 'mm' ? [{ t: o.t, dx: shaken[i]!.x! - o.x! }] : []))
    for (const m of moves) expect(Math.abs(m.dx)).toBeLessThanOrEqual(3 * 1.4 + 0.1)
    // sign changes of the added displacement, two per period, over the time the hand moves (gaps ≤ 50 ms)
    let changes = 0
    let moving = 0
    for (let i = 1; i < moves.length; i++) {
      const gap = moves[i]!.t - moves[i - 1]!.t
      if (gap > 50) continue
      moving += gap
      if (Math.sign(moves[i]!.dx) * Math.sign(moves[i - 1]!.dx) < 0) changes++
    }
    const hz = changes / 2 / (moving / 1000)
    // the frequency drifts by ±10 %
    expect(hz).toBeGreaterThan(8 * 0.85)
    expect(hz).toBeLessThan(8 * 1.15)
  })
})
