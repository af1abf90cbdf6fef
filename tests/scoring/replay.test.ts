import { describe, expect, it } from 'bun:test'
import { loadReal } from '../../ml/data/load'
import { replayWithJitter, stitchStrokes } from '../../ml/generators/stitch'
import { generatorFamily } from '../../ml/generators/index'
import { createRng, deriveSeed } from '../../ml/synth/prng'
import {
  decodeMaterial,
  encodeMaterial,
  judgeReuse,
  KEY_FANOUT_LIMIT,
  MemoryReplayStore,
  materialKeys,
  REUSE_RULE,
  replayMaterial,
  SHAPE_MATCH_PX,
  shapeDistance,
} from '../../src/scoring/replay'
import type { Signal } from '../../src/scoring/signals'
import fixture from '../fixtures/scoring/sapimouse-mouse-only.json'

// Real SapiMouse recordings of three people (20 s each, ml/data/real/README.md).
const people = (fixture as { sessions: { user: string; signals: Signal[] }[] }).sessions
const ORG = '00000000-0000-4000-8000-000000000001'
const OTHER_ORG = '00000000-0000-4000-8000-000000000002'

const judge = (signals: readonly Signal[], earlier: readonly Signal[][], org = ORG) =>
  judgeReuse(
    org,
    replayMaterial(signals),
    earlier.map((s, i) => ({ id: String(i), material: replayMaterial(s) }))
  )

describe('replay material of real recordings', () => {
  it('each real fixture has distinctive strokes, and its keys include the organization', () => {
    for (const p of people) {
      const m = replayMaterial(p.signals)
      expect(m.mouse.length).toBeGreaterThanOrEqual(REUSE_RULE.strokes)
      expect(m.typing).toEqual([])
      const a = materialKeys(ORG, m).stored
      const b = materialKeys(OTHER_ORG, m).stored
      expect(a.length).toBeGreaterThan(0)
      expect(a.filter((k) => b.includes(k))).toEqual([])
      for (const k of a) expect(Number.isSafeInteger(k) && k >= 0).toBe(true)
    }
  })

  it('a jittered replay of a real session matches it (shifted up to 40 px, 0.3–2 px and 0.5–3 ms of noise per event)', () => {
    for (const [i, p] of people.entries()) {
      const copy = replayWithJitter(createRng(deriveSeed(13, 'replay-test', i)), p.signals, { positionNoisePx: 2, timeNoiseMs: 3 })
      const j = judge(copy, [p.signals])
      expect(j.strokesReused).toBe(true)
      // nearly every distinctive stroke is found, not just the three the rule needs
      expect(j.strokesMatched).toBeGreaterThanOrEqual(0.8 * j.strokes)
      expect(j.sources).toEqual(['0'])
    }
  })

  it("two different real people's sessions do not match, and their closest strokes are well beyond the match distance", () => {
    for (const [i, p] of people.entries()) {
      const others = people.filter((_, k) => k !== i).map((o) => o.signals)
      const j = judge(p.signals, others)
      expect(j.strokesMatched).toBe(0)
      expect(j.strokesReused).toBe(false)
      expect(j.nearestMiss).toBeGreaterThan(SHAPE_MATCH_PX)
    }
  })

  it('a mirrored stroke matches its original', () => {
    const shapes = replayMaterial(people[0]!.signals).mouse
    const stroke = shapes[0]!
    for (const [sx, sy] of [
      [-1, 1],
      [1, -1],
      [-1, -1],
    ]) {
      const mirrored = stroke.map((v, i) => (i % 2 === 0 ? sx : sy) * v) as Float64Array
      expect(shapeDistance(stroke, mirrored)).toBe(0)
    }
    // a whole session mirrored on the page (as a stitcher mirrors strokes that would leave it) is found
    const flipped = people[0]!.signals.map((e) => (e.x === undefined ? e : { ...e, x: 1900 - e.x!, y: 1000 - e.y! }))
    expect(judge(flipped, [people[0]!.signals]).strokesReused).toBe(true)
  })

  it('strokes stitched from real people are found once an earlier session used them', () => {
    const rng = createRng(7)
    const stitched = stitchStrokes(
      rng,
      people.map((p) => p.signals),
      { people: people.map((p) => p.user), durationMs: 20_000 }
    )
    const j = judge(stitched, [people.flatMap((p) => p.signals)])
    expect(j.strokesReused).toBe(true)
    expect(j.strokesMatched).toBe(j.strokes)
  })

  it('a replayed typing rhythm matches its recording, with or without a few ms of jitter; two typists do not', () => {
    const typist = generatorFamily('typing_real_figures')
    const a = typist.make(createRng(1))
    const b = typist.make(createRng(2))
    const rng = createRng(3)
    const jittered = a.map((e) => ({ ...e, t: Math.round(e.t + 5000 + rng.normal(0, 3)) })).sort((x, y) => x.t - y.t)
    expect(
      judge(
        a.map((e) => ({ ...e, t: e.t + 777 })),
        [a]
      ).typingReused
    ).toBe(true)
    const j = judge(jittered, [a])
    expect(j.typingReused).toBe(true)
    expect(j.latenciesMatched).toBeGreaterThanOrEqual(REUSE_RULE.latencies)
    const other = judge(b, [a])
    expect(other.typingReused).toBe(false)
    expect(other.latenciesMatched).toBeLessThan(REUSE_RULE.latencyShare * Math.max(1, other.latenciesCompared))
  })

  it('a jittered replay of a real phone recording (touch strokes) matches it; the same person drawing the same circle again does not', () => {
    const phone = loadReal('delbot').filter((x) => x.family === 'human_tel' && x.unit === 'page')
    const source = phone.find((x) => replayMaterial(x.signals).touch.length >= REUSE_RULE.strokes)!
    const others = phone.filter((x) => x !== source).map((x) => x.signals)
    expect(replayMaterial(source.signals).mouse).toEqual([])
    const copy = replayWithJitter(createRng(17), source.signals, { positionNoisePx: 2, timeNoiseMs: 3 })
    const j = judge(copy, [source.signals])
    expect(j.strokesReused).toBe(true)
    // other windows of the phone recordings: one person's other circles
    const again = judge(source.signals, others)
    expect(again.strokesMatched).toBe(0)
    expect(again.nearestMiss).toBeGreaterThan(SHAPE_MATCH_PX)
  })

  it('material survives its byte encoding to within ¼ px', () => {
    const m = replayMaterial(people[1]!.signals)
    const back = decodeMaterial(encodeMaterial(m))
    expect(back.mouse.length).toBe(m.mouse.length)
    for (const [i, s] of m.mouse.entries())
      for (const [k, v] of s.entries()) expect(Math.abs(back.mouse[i]![k]! - v)).toBeLessThanOrEqual(0.25)
  })
})

describe('MemoryReplayStore (the eval store)', () => {
  it('finds a replay only in its own organization and only from an earlier session', () => {
    const store = new MemoryReplayStore()
    const source = people[2]!.signals
    const copy = replayWithJitter(createRng(5), source)
    expect(store.judgeAndAdd(ORG, 'original', 1, replayMaterial(source)).strokesReused).toBe(false)
    expect(store.judgeAndAdd(OTHER_ORG, 'copy-elsewhere', 2, replayMaterial(copy)).strokesReused).toBe(false)
    expect(store.judgeAndAdd(ORG, 'copy', 3, replayMaterial(copy)).strokesReused).toBe(true)
    // a session that started before the original is not compared with it
    expect(store.judgeAndAdd(ORG, 'before', 0, replayMaterial(copy)).strokesReused).toBe(false)
  })

  it('counts only the most recent sharers of a key that a farm repeats, and still finds a replay through rarer keys', () => {
    const store = new MemoryReplayStore()
    store.add(ORG, 'original', 0, replayMaterial(people[2]!.signals))
    // a farm sends one recording again and again: every key of it is shared by all its sessions
    const farm = replayMaterial(people[0]!.signals)
    const sessions = KEY_FANOUT_LIMIT + 28
    for (let i = 0; i < sessions; i++) store.add(ORG, `farm${String(i).padStart(3, '0')}`, 1 + i, farm)
    const { lookup } = materialKeys(ORG, farm)
    const candidates = store.candidates(ORG, 'next', 1000, lookup).map((c) => c.id)
    const newest = Array.from({ length: KEY_FANOUT_LIMIT }, (_, i) => `farm${String(sessions - 1 - i).padStart(3, '0')}`)
    expect(candidates.sort()).toEqual(newest.sort())
    // the farm's next session is still a copy, and a replay of the original is still found by its own keys
    expect(store.judgeAndAdd(ORG, 'next', 1000, farm).strokesReused).toBe(true)
    const copy = replayWithJitter(createRng(6), people[2]!.signals)
    expect(store.judgeAndAdd(ORG, 'copy', 1001, replayMaterial(copy)).strokesReused).toBe(true)
  })
})

describe('the eval rows, small (npm run eval has the full ones)', () => {
  it('no real SapiMouse window is judged reused when every window is in one organization', () => {
    const store = new MemoryReplayStore()
    const windows = loadReal('sapimouse')
    const judged = windows.map((w, i) => store.judgeAndAdd(ORG, `w${i}`, i, replayMaterial(w.signals)))
    expect(judged.filter((j) => j.strokesReused || j.typingReused)).toEqual([])
    expect(Math.min(...judged.map((j) => j.nearestMiss))).toBeGreaterThan(SHAPE_MATCH_PX)
  })

  it('a farm stitching one small corpus is not caught at first, and is caught once it reuses it', () => {
    const corpus = loadReal('sapimouse').slice(0, 8)
    const store = new MemoryReplayStore()
    const caught = Array.from({ length: 40 }, (_, i) => {
      const rng = createRng(deriveSeed(13, 'farm-test', i))
      const session = stitchStrokes(
        rng,
        corpus.map((c) => c.signals),
        { people: corpus.map((c) => c.user) }
      )
      return store.judgeAndAdd(ORG, `farm${i}`, i, replayMaterial(session)).strokesReused
    })
    expect(caught[0]).toBe(false)
    expect(caught.slice(20).filter(Boolean).length).toBeGreaterThanOrEqual(18)
  })
})
