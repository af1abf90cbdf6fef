import { describe, expect, it } from 'bun:test'
import { parseRetryAfter, SESSION_MAX_MS } from '../../src/sdk/collector'
import { createSessionStore, STORAGE_KEY } from '../../src/sdk/session'
import { collectorWith, memoryStorage, ok, PUBLIC_KEY, settle } from './fake-env'

const move = (x: number) => ({ k: 'mm' as const, x, y: x / 2 })
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('SDK collector: batching', () => {
  it('sends a timed batch every 5 s with the public key, JSON and the feature vector', async () => {
    const { fake, collector } = collectorWith()
    collector.record(move(1), fake.now + 10)
    collector.record({ k: 'kd', kc: 'char' }, fake.now + 20)
    collector.record({ k: 's', dy: 40 }, fake.now + 30.123)
    await fake.advance(4999)
    expect(fake.posts).toHaveLength(0)
    await fake.advance(1)
    expect(fake.posts).toHaveLength(1)
    const [post] = fake.posts
    expect(post!.url).toBe('https://api.test/v1/ingest')
    expect(post!.headers).toEqual({ 'Content-Type': 'application/json', 'X-API-Key': PUBLIC_KEY })
    expect(post!.keepalive).toBe(true)
    expect(post!.body.session_id).toMatch(UUID)
    expect(post!.body.sdk_type).toBe('web')
    expect(post!.body.captured_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(post!.body.signals).toEqual([
      { t: 10, k: 'mm', x: 1, y: 0.5 },
      { t: 20, k: 'kd', kc: 'char' },
      { t: 30.12, k: 's', dy: 40 },
    ])
    expect(post!.body.features).toHaveLength(34)
    expect(post!.body.features.every((f: number) => Number.isFinite(f))).toBe(true)
    expect(collector.stats()).toMatchObject({ sent: 3, buffered: 0, requests: 1, dropped: 0 })
  })

  it('sends at once when 200 events wait, without waiting for the timer', async () => {
    const { fake, collector } = collectorWith()
    for (let i = 0; i < 199; i++) collector.record(move(i), fake.now + i)
    await settle()
    expect(fake.posts).toHaveLength(0)
    collector.record(move(199), fake.now + 199)
    await settle()
    expect(fake.posts).toHaveLength(1)
    expect(fake.posts[0]!.body.signals).toHaveLength(200)
  })

  it('restarts the 5 s clock after a size-triggered batch', async () => {
    const { fake, collector } = collectorWith()
    await fake.advance(3000)
    for (let i = 0; i < 200; i++) collector.record(move(i), fake.now)
    await settle()
    collector.record(move(1), fake.now)
    await fake.advance(4999)
    expect(fake.posts).toHaveLength(1)
    await fake.advance(1)
    expect(fake.posts).toHaveLength(2)
    expect(fake.posts[1]!.at - fake.posts[0]!.at).toBe(5000)
  })

  it('makes no request while the page is idle', async () => {
    const { fake } = collectorWith()
    await fake.advance(60_000)
    expect(fake.posts).toHaveLength(0)
  })

  it('keeps t relative to the session start and never lets it go backwards', async () => {
    const { fake, collector } = collectorWith()
    collector.record(move(1), fake.now + 50)
    collector.record(move(2), fake.now + 40)
    collector.record(move(3), fake.now + 60.456)
    await collector.flush()
    expect(fake.posts[0]!.body.signals.map((s: { t: number }) => s.t)).toEqual([50, 50, 60.46])
  })

  it('flush() sends everything now, in batches of at most 200', async () => {
    const { fake, collector } = collectorWith()
    fake.respond(() => ok(202))
    for (let i = 0; i < 450; i++) collector.record(move(i), fake.now + i)
    await collector.flush()
    expect(fake.posts.map((p) => p.body.signals.length)).toEqual([200, 200, 50])
    expect(collector.stats()).toMatchObject({ sent: 450, buffered: 0 })
  })
})

describe('SDK collector: retries', () => {
  it('retries a 503 with backoff and sends the same body again', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 1 ? ok(503) : ok(202)))
    collector.record(move(1), fake.now + 1)
    await fake.advance(5000)
    expect(fake.posts).toHaveLength(1)
    // attempt 0: 1000 ms base, equal jitter with random() = 0.5 → 750 ms
    await fake.advance(749)
    expect(fake.posts).toHaveLength(1)
    await fake.advance(1)
    expect(fake.posts).toHaveLength(2)
    expect(fake.posts[1]!.body).toEqual(fake.posts[0]!.body)
    expect(collector.stats()).toMatchObject({ sent: 1, failures: 1, requests: 2, dropped: 0 })
  })

  it('respects Retry-After on 429', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 1 ? ok(429, { 'retry-after': '30' }) : ok(202)))
    collector.record(move(1), fake.now + 1)
    await fake.advance(5000)
    await fake.advance(29_999)
    expect(fake.posts).toHaveLength(1)
    await fake.advance(1)
    expect(fake.posts).toHaveLength(2)
  })

  it('backs off exponentially on network errors and gives up after the last retry', async () => {
    const { fake, collector } = collectorWith({ maxRetries: 3 })
    fake.respond(() => 'network-error')
    collector.record(move(1), fake.now + 1)
    await fake.advance(5000)
    const sentAt = () => fake.posts.map((p) => p.at - fake.posts[0]!.at)
    await fake.advance(600_000)
    // 750, then 1500, then 3000 ms after each failure (random() = 0.5)
    expect(sentAt()).toEqual([0, 750, 2250, 5250])
    expect(collector.stats()).toMatchObject({ dropped: 1, sent: 0, buffered: 0, failures: 4 })
  })

  it('does not retry a 400 and drops the batch', async () => {
    const { fake, collector } = collectorWith()
    fake.respond(() => ok(400))
    collector.record(move(1), fake.now + 1)
    await fake.advance(120_000)
    expect(fake.posts).toHaveLength(1)
    expect(collector.stats()).toMatchObject({ dropped: 1, sent: 0 })
    expect(fake.warnings.join()).toContain('400')
  })

  it('stops collecting when the key is refused (403)', async () => {
    const { fake, collector } = collectorWith()
    fake.respond(() => ok(403))
    collector.record(move(1), fake.now + 1)
    await fake.advance(5000)
    collector.record(move(2), fake.now + 1)
    await fake.advance(60_000)
    expect(fake.posts).toHaveLength(1)
    expect(fake.pendingTimers()).toBe(0)
  })

  it('keeps a bounded buffer while the service is down and counts what it drops', async () => {
    const { fake, collector } = collectorWith()
    fake.respond(() => 'network-error')
    for (let i = 0; i < 200; i++) collector.record(move(i), fake.now + i)
    await settle()
    for (let i = 0; i < 10_000; i++) collector.record(move(i), fake.now + 200 + i)
    expect(collector.stats()).toMatchObject({ buffered: 5200, dropped: 5000 })
  })

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7', 0)).toBe(7000)
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000)
    expect(parseRetryAfter('soon', 0)).toBeNull()
    expect(parseRetryAfter(null, 0)).toBeNull()
  })
})

describe('SDK collector: leaving the page', () => {
  it('hands the buffer to sendBeacon with the key in the URL, in batches of 200, pending retry first', async () => {
    const { fake, collector } = collectorWith()
    fake.respond(() => 'network-error')
    for (let i = 0; i < 200; i++) collector.record(move(i), fake.now + i)
    await settle()
    for (let i = 0; i < 250; i++) collector.record(move(i), fake.now + 200 + i)
    collector.flushBeacon()
    expect(fake.beacons.map((b) => b.url)).toEqual(Array(3).fill(`https://api.test/v1/ingest?key=${PUBLIC_KEY}`))
    expect(fake.beacons[0]!.body).toEqual(fake.posts[0]!.body)
    expect(fake.beacons.map((b) => b.body.signals.length)).toEqual([200, 200, 50])
    expect(collector.stats()).toMatchObject({ buffered: 0, beacons: 3 })
    // The retry it replaced must not fire afterwards.
    const posted = fake.posts.length
    await fake.advance(600_000)
    expect(fake.posts).toHaveLength(posted)
  })

  it('keeps the events when the browser refuses the beacon', () => {
    const { fake, collector } = collectorWith()
    fake.refuseBeacons()
    collector.record(move(1), fake.now + 1)
    collector.flushBeacon()
    expect(collector.stats()).toMatchObject({ buffered: 1, beacons: 0 })
  })

  it('stop() removes the timer and beacons the rest', async () => {
    const { fake, collector } = collectorWith()
    collector.record(move(1), fake.now + 1)
    collector.stop()
    expect(fake.beacons).toHaveLength(1)
    collector.record(move(2), fake.now + 2)
    await fake.advance(60_000)
    expect(fake.posts).toHaveLength(0)
    expect(fake.pendingTimers()).toBe(0)
  })
})

describe('SDK collector: sessions', () => {
  it('starts a new session when the service answers 409 (session closed)', async () => {
    const { fake, collector } = collectorWith()
    fake.respond((n) => (n === 1 ? ok(409) : ok(202)))
    collector.record(move(1), fake.now + 100)
    await fake.advance(5000)
    const first = fake.posts[0]!.body.session_id
    collector.record(move(2), fake.now + 100)
    collector.record(move(3), fake.now + 150)
    await fake.advance(5000)
    const second = fake.posts[1]!.body
    expect(second.session_id).not.toBe(first)
    // The new session starts when the old one was refused.
    expect(second.signals.map((s: { t: number }) => s.t)).toEqual([100, 150])
    expect(collector.stats().dropped).toBe(1)
  })

  it('rotates the session before ingest would close it (30 minutes after the first batch)', async () => {
    const { fake, collector } = collectorWith()
    collector.record(move(1), fake.now + 1)
    await fake.advance(5000)
    const first = fake.posts[0]!.body.session_id
    await fake.advance(SESSION_MAX_MS - 10_000)
    collector.record(move(2), fake.now)
    await fake.advance(5000)
    expect(fake.posts[1]!.body.session_id).toBe(first)
    await fake.advance(20_000)
    collector.record(move(3), fake.now)
    await fake.advance(5000)
    expect(fake.posts[2]!.body.session_id).not.toBe(first)
  })

  it('rotate(): a tab whose session another live tab holds goes on in a new one, its waiting events with it', async () => {
    const storage = memoryStorage()
    const opener = collectorWith({}, { storage })
    opener.collector.record(move(1), opener.fake.now + 1)
    await opener.fake.advance(5000)
    const shared = opener.fake.posts[0]!.body.session_id
    // a popup starts with a copy of the opener's storage: the same session and the same sent signals
    const popup = collectorWith({}, { fake: opener.fake, storage: memoryStorage(storage) })
    expect(popup.collector.sessionId).toBe(shared)
    popup.collector.record(move(7), popup.fake.now + 1)
    popup.collector.rotate()
    expect(popup.collector.sessionId).not.toBe(shared)
    await popup.fake.advance(5000)
    const batch = popup.fake.posts.at(-1)!.body
    expect(batch.session_id).toBe(popup.collector.sessionId)
    expect(batch.signals.map((s: { x: number }) => s.x)).toEqual([7])
    // its vector covers only its own batch, not the opener's signals
    expect(batch.features[0]).toBeCloseTo(Math.log1p(1), 9)
    expect(opener.collector.sessionId).toBe(shared)
  })

  it('keeps the session id and start for the tab across page loads', () => {
    const storage = memoryStorage()
    const a = createSessionStore(storage, 1000, () => crypto.randomUUID())
    const b = createSessionStore(storage, 5000, () => crypto.randomUUID())
    expect(b.get()).toEqual(a.get())
    expect(b.get().start).toBe(1000)
  })

  it('replaces a corrupt stored session and survives a storage that throws', () => {
    const storage = memoryStorage()
    storage.setItem(STORAGE_KEY, '{"id":"not-a-uuid","start":1}')
    expect(createSessionStore(storage, 10, () => '00000000-0000-4000-8000-000000000001').get().id).toBe(
      '00000000-0000-4000-8000-000000000001'
    )
    const broken = {
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('denied')
      },
    }
    const store = createSessionStore(broken, 10, () => '00000000-0000-4000-8000-000000000002')
    expect(store.get()).toEqual({ id: '00000000-0000-4000-8000-000000000002', start: 10 })
  })
})
