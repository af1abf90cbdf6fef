// The feature vector of every batch must be the one the service computes once it stores that
// batch: extractFeatures over the session's stored signals, in order, the last FEATURE_WINDOW.
import { describe, expect, it } from 'bun:test'
import { extractFeatures, FEATURE_WINDOW } from '../../src/scoring/features'
import type { Signal } from '../../src/scoring/signals'
import { SESSION_MAX_MS } from '../../src/sdk/collector'
import type { SignalFields } from '../../src/sdk/events'
import { SENT_KEY, STORAGE_KEY } from '../../src/sdk/session'
import { collectorWith, fakeEnv, memoryStorage, ok, settle } from './fake-env'

/** moves on a curve, key presses and wheel scrolls, so most features have data */
function event(i: number): SignalFields {
  const r = i % 20
  if (r === 18) return { k: 's', dy: 40 + (i % 3) * 20 }
  if (r === 16) return { k: 'kd', kc: 'char' }
  if (r === 17) return { k: 'ku', kc: 'char' }
  return { k: 'mm', x: 400 + 300 * Math.sin(i / 40) + (i % 7), y: 300 + 200 * Math.cos(i / 55), n: 1 + (i % 3) } as SignalFields
}

type Body = { session_id: string; signals: Signal[]; features: number[] }

/**
 * Replays what the service stores, batch by batch, and checks each batch's vector against the
 * server's (extractFeatures over the session's stored signals, the last FEATURE_WINDOW). Returns the
 * stored signals per session.
 */
function expectServerVectors(bodies: Body[]): Map<string, Signal[]> {
  const sessions = new Map<string, Signal[]>()
  bodies.forEach((body, i) => {
    const all = (sessions.get(body.session_id) ?? []).concat(body.signals)
    sessions.set(body.session_id, all)
    expect({ batch: i + 1, features: body.features }).toEqual({ batch: i + 1, features: extractFeatures(all.slice(-FEATURE_WINDOW)) })
  })
  return sessions
}

describe('SDK feature vector = the service’s vector after this batch', () => {
  it('leaves out events still buffered behind the batch (more than two batches waiting)', async () => {
    const { fake, collector } = collectorWith()
    // Recorded at once: the first batch goes at 200 events, 450 more wait behind it.
    for (let i = 0; i < 650; i++) collector.record(event(i), fake.now + i * 16)
    await collector.flush()
    expect(fake.posts.map((p) => p.body.signals.length)).toEqual([200, 200, 200, 50])
    expectServerVectors(fake.stored)
  })

  it('covers exactly the last FEATURE_WINDOW sent signals, and stores no more than that', async () => {
    const { fake, collector, storage } = collectorWith()
    for (let i = 0; i < FEATURE_WINDOW + 1300; i++) {
      collector.record(event(i), fake.now + 16)
      if (i % 1000 === 999) await fake.advance(16)
    }
    await collector.flush()
    const sessions = expectServerVectors(fake.stored)
    expect([...sessions.values()][0]!.length).toBe(FEATURE_WINDOW + 1300)
    const saved = JSON.parse(storage!.getItem(SENT_KEY)!)
    expect(saved.signals).toHaveLength(FEATURE_WINDOW)
    expect(saved.signals.at(-1)).toEqual(fake.posts.at(-1)!.body.signals.at(-1))
  })

  it('continues across a navigation: the next page load includes what earlier pages sent (fetch and beacon)', async () => {
    const fake = fakeEnv()
    const storage = memoryStorage()
    const first = collectorWith({}, { fake, storage })
    for (let i = 0; i < 450; i++) first.collector.record(event(i), fake.now + 16)
    await settle()
    await fake.advance(5000)
    for (let i = 450; i < 570; i++) first.collector.record(event(i), fake.now + 16)
    first.collector.stop() // pagehide: the last 120 go by sendBeacon
    expect(fake.beacons).toHaveLength(1)

    const second = collectorWith({}, { fake, storage })
    expect(second.collector.sessionId).toBe(first.collector.sessionId)
    expect(second.session.sent()).toHaveLength(570)
    await fake.advance(1000)
    for (let i = 570; i < 900; i++) second.collector.record(event(i), fake.now + 16)
    await second.collector.flush()
    const sessions = expectServerVectors(fake.stored)
    expect(sessions.size).toBe(1)
    expect([...sessions.values()][0]).toHaveLength(900)
  })

  it('keeps the original body on a retry and counts the retried batch once', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 2 ? ok(503) : ok(202)))
    for (let i = 0; i < 450; i++) collector.record(event(i), fake.now + 16)
    await fake.advance(60_000)
    expect(fake.posts[2]!.body).toEqual(fake.posts[1]!.body)
    expect(collector.stats()).toMatchObject({ sent: 450, buffered: 0 })
    expectServerVectors(fake.stored)
  })

  it('leaves a refused batch (400) out of later vectors', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 2 ? ok(400) : ok(202)))
    for (let i = 0; i < 650; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    expect(fake.posts).toHaveLength(4)
    expect(fake.stored).toHaveLength(3)
    expectServerVectors(fake.stored)
  })

  it('starts over when the session rotates, also for the next page load', async () => {
    const fake = fakeEnv()
    const storage = memoryStorage()
    const { collector } = collectorWith({}, { fake, storage })
    for (let i = 0; i < 300; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    const old = collector.sessionId
    await fake.advance(SESSION_MAX_MS + 1000)
    for (let i = 300; i < 330; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    expect(collector.sessionId).not.toBe(old)
    const last = fake.posts.at(-1)!.body
    expect(last.session_id).toBe(collector.sessionId)
    expect(last.features).toEqual(extractFeatures(last.signals))
    expect(JSON.parse(storage.getItem(SENT_KEY)!)).toMatchObject({ id: collector.sessionId, signals: last.signals })

    await fake.advance(1000)
    const next = collectorWith({}, { fake, storage })
    expect(next.collector.sessionId).toBe(collector.sessionId)
    expect(next.session.sent()).toEqual(last.signals)
    expectServerVectors(fake.stored)
  })

  it('starts over after a 409 (session closed by the service)', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 3 ? ok(409) : ok(202)))
    for (let i = 0; i < 600; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    for (let i = 600; i < 650; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    const sessions = expectServerVectors(fake.stored)
    expect([...sessions.values()].map((s) => s.length)).toEqual([400, 50])
  })

  it('ignores sent signals stored for another session', () => {
    const storage = memoryStorage()
    const { session } = collectorWith({}, { storage })
    storage.setItem(SENT_KEY, JSON.stringify({ id: '00000000-0000-4000-8000-999999999999', signals: [{ t: 1, k: 'mm', x: 1, y: 1 }] }))
    expect(collectorWith({}, { storage }).session.sent()).toEqual([])
    storage.setItem(SENT_KEY, JSON.stringify({ id: session.get().id, signals: 'garbage' }))
    expect(collectorWith({}, { storage }).session.sent()).toEqual([])
    storage.setItem(SENT_KEY, '{not json')
    expect(collectorWith({}, { storage }).session.sent()).toEqual([])
  })

  it('keeps sending with correct vectors when storage throws (quota) or is missing', async () => {
    const full = memoryStorage()
    const quota = {
      getItem: full.getItem,
      setItem(k: string, v: string) {
        if (k === SENT_KEY) throw new DOMException('exceeded the quota', 'QuotaExceededError')
        full.setItem(k, v)
      },
    }
    const broken = {
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('denied')
      },
    }
    for (const storage of [quota, broken, null]) {
      const { fake, collector } = collectorWith({}, { storage })
      for (let i = 0; i < 650; i++) collector.record(event(i), fake.now + 16)
      await collector.flush()
      for (let i = 650; i < 700; i++) collector.record(event(i), fake.now + 16)
      collector.stop()
      expect(collector.stats()).toMatchObject({ sent: 700, buffered: 0, dropped: 0 })
      expect(fake.warnings).toEqual([])
      expectServerVectors(fake.stored)
    }
    // The session itself was stored; its sent signals were not.
    expect(full.map.has(STORAGE_KEY)).toBe(true)
    expect(full.map.has(SENT_KEY)).toBe(false)
  })

  it('writes sent signals to storage only when a batch is made, not per event', async () => {
    const inner = memoryStorage()
    let writes = 0
    const storage = {
      getItem: inner.getItem,
      setItem: (k: string, v: string) => {
        if (k === SENT_KEY) writes++
        inner.setItem(k, v)
      },
    }
    const { fake, collector } = collectorWith({}, { storage })
    for (let i = 0; i < 650; i++) collector.record(event(i), fake.now + 16)
    await collector.flush()
    expect(writes).toBe(fake.posts.length)
    for (let i = 0; i < 450; i++) collector.record(event(i), fake.now + 16)
    await settle()
    const before = writes
    fake.respond(() => 'network-error')
    collector.record(event(1), fake.now + 16)
    collector.flushBeacon()
    // One write for all the beacons of a page exit.
    expect(writes - before).toBeLessThanOrEqual(1)
  })
})
