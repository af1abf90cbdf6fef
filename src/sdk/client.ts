// Browser wiring: turns DOM events into signals for the collector. Every handler is
// wrapped so that nothing the SDK does can throw into the host page.
import { createCollector, DEFAULTS, type Collector, type Env } from './collector'
import {
  buttonSignal,
  clickSignal,
  keySignal,
  moveSignal,
  PenTouches,
  plainSignal,
  scrollSignal,
  touchSignal,
  type SignalFields,
} from './events'
import { createSessionStore } from './session'
import type { BssClient, BssStats, InitOptions } from './v1'

export const version = '1.0.1'

const KEY_RE = /^svc_live_pk_[0-9A-Za-z]{24,128}$/
const RESIZE_EVERY_MS = 250

const EMPTY_STATS: BssStats = { sent: 0, buffered: 0, dropped: 0, requests: 0, beacons: 0, failures: 0 }

function warn(message: string) {
  try {
    console.warn(message)
  } catch {}
}

function inert(reason: string): BssClient {
  warn(`BSS: not collecting — ${reason}`)
  return { sessionId: '', flush: () => Promise.resolve(), stats: () => ({ ...EMPTY_STATS }), stop() {} }
}

/** crypto.randomUUID exists only in secure contexts; getRandomValues everywhere. */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const b = crypto.getRandomValues(new Uint8Array(16))
  b[6] = (b[6] & 0x0f) | 0x40
  b[8] = (b[8] & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback
}

let running: { key: string; client: BssClient } | null = null

export function init(options: InitOptions): BssClient {
  try {
    if (typeof window === 'undefined' || typeof document === 'undefined') return inert('no browser window')
    if (!options || typeof options.publicKey !== 'string' || !KEY_RE.test(options.publicKey)) {
      return inert('init() needs a public key (svc_live_pk_…); never use a secret key in a page')
    }
    if (running && running.key === options.publicKey) return running.client
    running?.client.stop()
    const client = start(options)
    running = { key: options.publicKey, client }
    return client
  } catch (error) {
    return inert(String(error))
  }
}

function start(options: InitOptions): BssClient {
  const perf = window.performance
  const origin = perf.timeOrigin || Date.now() - perf.now()
  const now = () => origin + perf.now()
  let storage: Storage | null = null
  try {
    storage = window.sessionStorage
  } catch {}

  const env: Env = {
    now,
    wallClock: () => Date.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    async post(url, body, headers, keepalive) {
      const res = await fetch(url, { method: 'POST', headers, body, keepalive, credentials: 'omit', mode: 'cors' })
      return { status: res.status, headers: res.headers }
    },
    beacon:
      typeof navigator.sendBeacon === 'function'
        ? (url, body) => navigator.sendBeacon(url, new Blob([body], { type: 'text/plain;charset=UTF-8' }))
        : undefined,
    random: Math.random,
    warn,
  }
  const endpoint = typeof options.endpoint === 'string' && options.endpoint ? options.endpoint : location.origin
  const collector: Collector = createCollector(
    env,
    {
      publicKey: options.publicKey,
      endpoint,
      flushIntervalMs: positive(options.flushIntervalMs, DEFAULTS.flushIntervalMs),
      maxBatch: positive(options.maxBatch, DEFAULTS.maxBatch),
      maxBuffer: positive(options.maxBuffer, DEFAULTS.maxBuffer),
      maxRetries: DEFAULTS.maxRetries,
      backoffBaseMs: DEFAULTS.backoffBaseMs,
      backoffMaxMs: DEFAULTS.backoffMaxMs,
    },
    createSessionStore(storage, now(), uuid)
  )

  // Event.timeStamp is on the performance.now() clock and closer to the input than "now".
  const at = (e: Event) => (e.timeStamp > 0 ? origin + e.timeStamp : now())
  const listeners: [EventTarget, string, EventListener][] = []
  const on = <E extends Event>(target: EventTarget, type: string, map: (e: E) => SignalFields | null, after?: (e: E) => void) => {
    const handler = (event: Event) => {
      try {
        const fields = map(event as E)
        if (fields) collector.record(fields, at(event))
        after?.(event as E)
      } catch {
        // A broken signal is not worth a broken page.
      }
    }
    // Capture phase: the host page stopping propagation must not blind the SDK; passive: never delays scrolling.
    target.addEventListener(type, handler, { capture: true, passive: true })
    listeners.push([target, type, handler])
  }

  const isTouch = (e: PointerEvent) => e.pointerType === 'touch'
  const pens = new PenTouches()
  const penDown = (e: PointerEvent, down: boolean) => {
    if (e.pointerType === 'pen') pens.penDown(down)
  }
  on<PointerEvent>(window, 'pointermove', (e) => (isTouch(e) ? null : moveSignal(e)))
  on<PointerEvent>(
    window,
    'pointerdown',
    (e) => (isTouch(e) ? null : buttonSignal('md', e)),
    (e) => penDown(e, true)
  )
  on<PointerEvent>(
    window,
    'pointerup',
    (e) => (isTouch(e) ? null : buttonSignal('mu', e)),
    (e) => penDown(e, false)
  )
  on<PointerEvent>(
    window,
    'pointercancel',
    () => null,
    (e) => penDown(e, false)
  )
  on<MouseEvent>(window, 'click', (e) => {
    const target = e.target as Element | null
    return clickSignal(e, target && typeof target.getBoundingClientRect === 'function' ? target.getBoundingClientRect() : null)
  })
  on<KeyboardEvent>(window, 'keydown', (e) => keySignal('kd', e))
  on<KeyboardEvent>(window, 'keyup', (e) => keySignal('ku', e))
  on<WheelEvent>(window, 'wheel', (e) => scrollSignal(e, window.innerHeight))
  // a pen's touch events are skipped (PenTouches: its pointer events record it)
  const touch = (kind: 'ts' | 'tm' | 'te', e: TouchEvent) => {
    const changed = e.changedTouches
    if (!changed || changed.length === 0) return touchSignal(kind, e)
    const fingers = pens.fingers(kind, changed)
    return fingers.length ? touchSignal(kind, { isTrusted: e.isTrusted, changedTouches: fingers }) : null
  }
  on<TouchEvent>(window, 'touchstart', (e) => touch('ts', e))
  on<TouchEvent>(window, 'touchmove', (e) => touch('tm', e))
  on<TouchEvent>(window, 'touchend', (e) => touch('te', e))
  // a cancelled touch ends as an ended one would (nothing recorded; a pen's touch is forgotten)
  on<TouchEvent>(window, 'touchcancel', (e) => {
    if (e.changedTouches) pens.fingers('te', e.changedTouches)
    return null
  })
  // focus/blur do not bubble: in the capture phase on window they would fire for every element.
  on<FocusEvent>(window, 'focus', (e) => (e.target === window ? plainSignal('f', e) : null))
  on<FocusEvent>(window, 'blur', (e) => (e.target === window ? plainSignal('b', e) : null))
  let lastResize = -Infinity
  on<UIEvent>(window, 'resize', (e) => {
    if (e.timeStamp - lastResize < RESIZE_EVERY_MS) return null
    lastResize = e.timeStamp
    return plainSignal('r', e)
  })
  // After pagehide the page is being unloaded (or frozen in the back/forward cache): the
  // visibilitychange that follows is not behaviour, and a beacon for it alone would be waste.
  let leaving = false
  on<Event>(
    document,
    'visibilitychange',
    (e) => (leaving ? null : plainSignal('v', e)),
    () => {
      if (document.visibilityState === 'hidden') collector.flushBeacon()
    }
  )
  on<PageTransitionEvent>(
    window,
    'pagehide',
    () => null,
    () => {
      leaving = true
      collector.flushBeacon()
    }
  )
  on<PageTransitionEvent>(
    window,
    'pageshow',
    () => null,
    () => {
      leaving = false
    }
  )

  // One session per tab, also for a tab that starts with a copy of another's sessionStorage: a popup
  // opened with window.open, a duplicated tab. Two live tabs writing one session made it two hands at
  // once, with vectors neither tab could match (feature_mismatch: a bot). A tab asks once whether a live
  // tab holds its session; if one answers, this tab goes on in a new session. A reloaded tab gets no
  // answer (its old page is gone or frozen), so it keeps its session.
  const tab = uuid()
  let tabs: BroadcastChannel | null = null
  try {
    tabs = new BroadcastChannel('bss:tabs:v1')
    tabs.onmessage = (message) => {
      try {
        const m = message.data as { who?: string; from?: string; mine?: string; to?: string } | null
        const id = collector.sessionId
        if (!m || typeof m !== 'object') return
        if (m.who === id && m.from !== tab) tabs?.postMessage({ mine: id, to: m.from })
        else if (m.mine === id && m.to === tab) collector.rotate()
      } catch {}
    }
    tabs.postMessage({ who: collector.sessionId, from: tab })
  } catch {
    // no BroadcastChannel (old browsers, some sandboxes): tabs that share storage share the session
  }

  const client: BssClient = {
    get sessionId() {
      return collector.sessionId
    },
    flush: () => collector.flush().catch(() => {}),
    stats: () => collector.stats(),
    stop() {
      try {
        for (const [target, type, handler] of listeners) target.removeEventListener(type, handler, { capture: true })
        listeners.length = 0
        tabs?.close()
        collector.stop()
        if (running?.client === client) running = null
      } catch {}
    },
  }
  return client
}
