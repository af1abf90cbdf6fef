import { createCollector, DEFAULTS, type CollectorOptions, type Env, type HttpAnswer } from '../../src/sdk/collector'
import { createSessionStore } from '../../src/sdk/session'

export type Sent = { url: string; body: any; headers: Record<string, string>; keepalive: boolean; at: number }

/** A virtual clock with timers, a scripted network and a recording sendBeacon. */
export function fakeEnv(start = 1_700_000_000_000) {
  let now = start
  let seq = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  const posts: Sent[] = []
  const beacons: { url: string; body: any }[] = []
  /** every body the service stored (a 2xx post or a queued beacon), in the order they went out */
  const stored: any[] = []
  const warnings: string[] = []
  let answer: (n: number) => HttpAnswer | 'network-error' = () => ok(202)
  let beaconAccepts = true

  const env: Env = {
    now: () => now,
    wallClock: () => Math.floor(now),
    setTimer(fn, ms) {
      const id = ++seq
      timers.set(id, { at: now + ms, fn })
      return id
    },
    clearTimer(h) {
      timers.delete(h as number)
    },
    async post(url, body, headers, keepalive) {
      posts.push({ url, body: JSON.parse(body), headers, keepalive, at: now })
      const a = answer(posts.length)
      if (a === 'network-error') throw new TypeError('Failed to fetch')
      if (a.status >= 200 && a.status < 300) stored.push(posts.at(-1)!.body)
      return a
    },
    beacon(url, body) {
      if (!beaconAccepts) return false
      beacons.push({ url, body: JSON.parse(body) })
      stored.push(beacons.at(-1)!.body)
      return true
    },
    random: () => 0.5,
    warn: (m) => warnings.push(m),
  }

  /** Runs every timer due up to now + ms, in order, letting promises settle between them. */
  async function advance(ms: number) {
    const end = now + ms
    for (;;) {
      await settle()
      let next: [number, { at: number; fn: () => void }] | undefined
      for (const entry of timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry
      if (!next) break
      timers.delete(next[0])
      now = Math.max(now, next[1].at)
      next[1].fn()
    }
    now = end
    await settle()
  }

  return {
    env,
    posts,
    beacons,
    stored,
    warnings,
    advance,
    get now() {
      return now
    },
    set now(v: number) {
      now = v
    },
    pendingTimers: () => timers.size,
    respond(fn: (n: number) => HttpAnswer | 'network-error') {
      answer = fn
    },
    refuseBeacons() {
      beaconAccepts = false
    },
  }
}

export const ok = (status: number, headers: Record<string, string> = {}): HttpAnswer => ({
  status,
  headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
})

export async function settle() {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

/** `copyOf`: start with another storage's entries (a popup or a duplicated tab copies sessionStorage) */
export function memoryStorage(copyOf?: { map: Map<string, string> }) {
  const map = new Map<string, string>(copyOf?.map)
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), map }
}

export const PUBLIC_KEY = 'svc_live_pk_' + 'a'.repeat(32)

let ids = 0
export const nextSessionId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`

type StorageLike = { getItem(key: string): string | null; setItem(key: string, value: string): void }

/**
 * A collector on a fake env. Pass the `fake` and `storage` of an earlier one to model the next
 * page load in the same tab: same clock and network, same sessionStorage, a fresh collector.
 */
export function collectorWith(
  options: Partial<CollectorOptions> = {},
  tab: { fake?: ReturnType<typeof fakeEnv>; storage?: StorageLike | null } = {}
) {
  const fake = tab.fake ?? fakeEnv()
  const storage = tab.storage === undefined ? memoryStorage() : tab.storage
  const session = createSessionStore(storage, fake.now, nextSessionId)
  const collector = createCollector(fake.env, { publicKey: PUBLIC_KEY, endpoint: 'https://api.test/', ...DEFAULTS, ...options }, session)
  return { fake, collector, storage, session }
}
