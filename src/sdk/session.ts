// One session per browser tab: sessionStorage survives reloads and navigations within the
// tab and is not shared with other tabs. Without storage (blocked, sandboxed) it lives in memory.
// Next to the session it keeps the session's sent signals (the last FEATURE_WINDOW handed to
// the network), so the feature vector of the next page load covers what the service holds.
import { FEATURE_WINDOW } from '../scoring/features'
import type { Signal } from '../scoring/signals'

export type Session = {
  id: string
  /** high-resolution epoch ms the session's t = 0 refers to */
  start: number
  /** epoch ms of the first batch the service accepted */
  first?: number
}

export type SessionStore = {
  get(): Session
  /** a new session; its sent signals start empty */
  rotate(start: number): Session
  markFirstBatch(at: number): void
  /** the session's last FEATURE_WINDOW signals handed to the network, oldest first */
  sent(): readonly Signal[]
  /** appends a batch handed to the network (in memory; save() stores it) */
  addSent(signals: readonly Signal[]): void
  /** takes the last `count` signals back out: a batch the service never stored */
  unsend(count: number): void
  /** writes the sent signals to storage if they changed */
  save(): void
}

type StorageLike = { getItem(key: string): string | null; setItem(key: string, value: string): void }

export const STORAGE_KEY = 'bss:session:v1'
export const SENT_KEY = 'bss:sent:v1'
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function read(storage: StorageLike | null, key: string): any {
  try {
    return storage ? JSON.parse(storage.getItem(key) ?? 'null') : null
  } catch {
    return null
  }
}

/** Quota or privacy mode: what is not stored simply ends with the page. */
function write(storage: StorageLike | null, key: string, value: unknown) {
  try {
    storage?.setItem(key, JSON.stringify(value))
  } catch {}
}

export function createSessionStore(storage: StorageLike | null, now: number, newId: () => string): SessionStore {
  let current: Session | null = null
  const saved = read(storage, STORAGE_KEY)
  if (
    saved &&
    typeof saved.id === 'string' &&
    UUID_RE.test(saved.id) &&
    typeof saved.start === 'number' &&
    Number.isFinite(saved.start) &&
    saved.start <= now &&
    (saved.first === undefined || (typeof saved.first === 'number' && Number.isFinite(saved.first)))
  ) {
    current = { id: saved.id, start: saved.start, first: saved.first }
  }
  let sent: Signal[] = []
  let dirty = false
  const stored = current && read(storage, SENT_KEY)
  // Only this session's, and only signals (an object with a finite t each).
  if (stored && stored.id === current!.id && Array.isArray(stored.signals) && stored.signals.every((s: any) => s && Number.isFinite(s.t))) {
    sent = stored.signals.slice(-FEATURE_WINDOW)
  }
  const save = () => write(storage, STORAGE_KEY, current)
  const saveSent = () => {
    dirty = false
    write(storage, SENT_KEY, { id: current!.id, signals: sent })
  }
  if (!current) {
    current = { id: newId(), start: now }
    save()
  }
  return {
    get: () => current!,
    rotate(start: number) {
      current = { id: newId(), start }
      save()
      sent = []
      saveSent()
      return current
    },
    markFirstBatch(at: number) {
      current = { ...current!, first: at }
      save()
    },
    sent: () => sent,
    addSent(signals) {
      for (const s of signals) sent.push(s)
      if (sent.length > FEATURE_WINDOW) sent.splice(0, sent.length - FEATURE_WINDOW)
      dirty = true
    },
    unsend(count) {
      sent.length = Math.max(0, sent.length - count)
      dirty = true
    },
    save() {
      if (dirty) saveSent()
    },
  }
}
