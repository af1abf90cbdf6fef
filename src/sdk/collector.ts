// The SDK's core: buffering, batching, the feature vector, sending and retrying.
// It knows nothing about the DOM; client.ts gives it an Env, tests give it a fake one.
import { windowFeatures } from '../scoring/features'
import type { Signal } from '../scoring/signals'
import type { SignalFields } from './events'
import type { SessionStore } from './session'
import type { BssStats } from './v1'

export type HttpAnswer = { status: number; headers: { get(name: string): string | null } }

export type Env = {
  /** high-resolution epoch ms (performance.timeOrigin + performance.now()) */
  now(): number
  /** Date.now(), for captured_at */
  wallClock(): number
  setTimer(fn: () => void, ms: number): unknown
  clearTimer(handle: unknown): void
  post(url: string, body: string, headers: Record<string, string>, keepalive: boolean): Promise<HttpAnswer>
  /** navigator.sendBeacon; false when the browser refused to queue it */
  beacon?(url: string, body: string): boolean
  random(): number
  warn(message: string): void
}

export type CollectorOptions = {
  publicKey: string
  endpoint: string
  flushIntervalMs: number
  maxBatch: number
  maxBuffer: number
  maxRetries: number
  backoffBaseMs: number
  backoffMaxMs: number
}

export const DEFAULTS = {
  flushIntervalMs: 5000,
  maxBatch: 200,
  maxBuffer: 5000,
  maxRetries: 6,
  backoffBaseMs: 1000,
  backoffMaxMs: 60_000,
} as const

/** Ingest keeps a session open for 30 minutes after its first batch; start a new one a little before. */
export const SESSION_MAX_MS = 29 * 60_000
/** Chromium refuses keepalive bodies once 64 KiB are in flight. */
const KEEPALIVE_MAX_BYTES = 60_000
const RETRY_AFTER_MAX_MS = 10 * 60_000

/** id: its place in the order batches were handed to the network (0 until handed) */
type Batch = { body: string; count: number; attempt: number; id: number }

const r2 = (v: number) => Math.round(v * 100) / 100

export function createCollector(env: Env, options: CollectorOptions, session: SessionStore) {
  const buffer: Signal[] = []
  let lastT = 0
  /** id of the batch handed to the network last */
  let handed = 0
  /** a batch that failed and waits for its retry timer; it goes before anything newer */
  let retry: (Batch & { timer: unknown }) | null = null
  let inflight: Promise<void> | null = null
  let stopped = false
  const stats: BssStats = { sent: 0, buffered: 0, dropped: 0, requests: 0, beacons: 0, failures: 0 }
  const ingestUrl = options.endpoint.replace(/\/+$/, '') + '/v1/ingest'

  function record(fields: SignalFields, at: number = env.now()) {
    if (stopped) return
    const current = session.get()
    // t is relative to the session start, which survives page loads in this tab; it must never go back.
    let t = r2(at - current.start)
    if (!(t >= lastT)) t = lastT
    lastT = t
    const signal = { t, ...fields } as Signal
    buffer.push(signal)
    if (buffer.length > options.maxBuffer) {
      const overflow = buffer.length - options.maxBuffer
      buffer.splice(0, overflow)
      stats.dropped += overflow
    }
    if (buffer.length >= options.maxBatch && !inflight && !retry) void run(null)
  }

  function rotateIfOld() {
    const current = session.get()
    if (current.first !== undefined && env.wallClock() - current.first > SESSION_MAX_MS) newSession()
  }

  function newSession() {
    const old = session.get()
    // The new session starts at the oldest event still waiting, which moves over to it with its timing intact.
    const offset = buffer.length > 0 ? buffer[0].t : r2(env.now() - old.start)
    session.rotate(old.start + offset)
    for (const s of buffer) s.t = r2(s.t - offset)
    lastT = buffer.length > 0 ? buffer[buffer.length - 1].t : 0
  }

  function makeBatch(signals: Signal[]): Batch {
    const current = session.get()
    // The vector covers what the service will hold once it stores this batch: the session's batches
    // handed to the network before it, in order, then this one; the last FEATURE_WINDOW signals.
    const window = session.sent().concat(signals)
    const body = JSON.stringify({
      session_id: current.id,
      sdk_type: 'web',
      captured_at: new Date(env.wallClock()).toISOString(),
      signals,
      features: windowFeatures(window),
    })
    return { body, count: signals.length, attempt: 0, id: 0 }
  }

  /** The batch is on its way: the vectors of later batches include it. The caller saves the session. */
  function handOver(batch: Batch, signals: Signal[]) {
    session.addSent(signals)
    batch.id = ++handed
  }

  function takeBatch(): Batch | null {
    if (buffer.length === 0) return null
    rotateIfOld()
    const signals = buffer.splice(0, options.maxBatch)
    const batch = makeBatch(signals)
    handOver(batch, signals)
    session.save()
    return batch
  }

  /** The service did not store the batch. When nothing was handed over after it, later vectors leave it out. */
  function drop(batch: Batch) {
    stats.dropped += batch.count
    if (batch.id === handed) {
      session.unsend(batch.count)
      session.save()
    }
  }

  function backoff(attempt: number, retryAfterHeader: string | null): number {
    const exp = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** attempt)
    // Equal jitter: at least half the exponential delay, so a fleet of tabs does not retry in step.
    let delay = exp / 2 + env.random() * (exp / 2)
    const retryAfter = parseRetryAfter(retryAfterHeader, env.wallClock())
    if (retryAfter !== null) delay = Math.max(delay, Math.min(retryAfter, RETRY_AFTER_MAX_MS))
    return delay
  }

  async function send(batch: Batch): Promise<void> {
    stats.requests++
    let answer: HttpAnswer | null = null
    try {
      answer = await env.post(
        ingestUrl,
        batch.body,
        { 'Content-Type': 'application/json', 'X-API-Key': options.publicKey },
        batch.body.length < KEEPALIVE_MAX_BYTES
      )
    } catch {
      answer = null
    }
    if (answer && answer.status >= 200 && answer.status < 300) {
      stats.sent += batch.count
      const current = session.get()
      if (current.first === undefined) session.markFirstBatch(env.wallClock())
      return
    }
    if (answer === null || answer.status >= 500 || answer.status === 429) {
      stats.failures++
      if (batch.attempt >= options.maxRetries) {
        drop(batch)
        return
      }
      const delay = backoff(batch.attempt, answer?.headers.get('retry-after') ?? null)
      batch.attempt++
      const timer = env.setTimer(() => {
        if (!retry || retry.timer !== timer) return
        retry = null
        void run(batch)
      }, delay)
      retry = { ...batch, timer }
      return
    }
    // Any other 4xx will not get better by retrying.
    drop(batch)
    if (answer.status === 409) {
      newSession()
    } else if (answer.status === 401 || answer.status === 403) {
      env.warn(`BSS: the service refused the public key (HTTP ${answer.status}); collection stopped`)
      stop(false)
    } else {
      env.warn(`BSS: a batch was refused (HTTP ${answer.status})`)
    }
  }

  function run(first: Batch | null): Promise<void> {
    if (inflight) return inflight
    // Every send restarts the 5 s clock, so size-triggered batches do not add timed ones on top.
    schedule()
    inflight = (async () => {
      try {
        let batch = first ?? takeBatch()
        while (batch && !stopped) {
          await send(batch)
          if (retry) break
          // Keep draining while full batches wait; a partial one waits for the timer.
          batch = buffer.length >= options.maxBatch ? takeBatch() : null
        }
      } finally {
        inflight = null
      }
    })()
    return inflight
  }

  /** Sends everything buffered now, one batch after the other. */
  async function flush(): Promise<void> {
    if (stopped) return
    if (inflight) await inflight
    if (retry) {
      const pending = retry
      env.clearTimer(pending.timer)
      retry = null
      await run(pending)
    }
    while (buffer.length > 0 && !retry && !stopped) {
      const before = buffer.length
      await run(null)
      if (buffer.length >= before) break
    }
  }

  /** The page is going away: hand everything to sendBeacon, which outlives the page. */
  function flushBeacon() {
    if (!env.beacon) return
    const url = `${ingestUrl}?key=${encodeURIComponent(options.publicKey)}`
    if (retry) {
      if (!env.beacon(url, retry.body)) return
      env.clearTimer(retry.timer)
      stats.beacons++
      stats.sent += retry.count
      retry = null
    }
    try {
      while (buffer.length > 0) {
        rotateIfOld()
        const signals = buffer.slice(0, options.maxBatch)
        const batch = makeBatch(signals)
        if (!env.beacon(url, batch.body)) return
        buffer.splice(0, signals.length)
        handOver(batch, signals)
        stats.beacons++
        stats.sent += batch.count
      }
    } finally {
      // Once, however many batches went: the next page load of the tab continues from here.
      session.save()
    }
  }

  let timer: unknown = null
  function schedule() {
    if (stopped) return
    env.clearTimer(timer)
    timer = env.setTimer(interval, options.flushIntervalMs)
  }
  function interval() {
    if (!inflight && !retry && buffer.length > 0) void run(null)
    else schedule()
  }
  schedule()

  function stop(sendRest = true) {
    if (stopped) return
    if (sendRest) flushBeacon()
    stopped = true
    env.clearTimer(timer)
    if (retry) env.clearTimer(retry.timer)
  }

  return {
    record,
    flush,
    flushBeacon,
    stop,
    /** another live tab holds this session: go on in a new one (the buffered events move over) */
    rotate() {
      if (!stopped) newSession()
    },
    get sessionId() {
      return session.get().id
    },
    stats: (): BssStats => ({ ...stats, buffered: buffer.length + (retry ? retry.count : 0) }),
  }
}

export type Collector = ReturnType<typeof createCollector>

/** Retry-After as ms from now: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs)
}
