// One session per browser tab: sessionStorage survives reloads and navigations within the
// tab and is not shared with other tabs. Without storage (blocked, sandboxed) it lives in memory.

export type Session = {
  id: string
  /** high-resolution epoch ms the session's t = 0 refers to */
  start: number
  /** epoch ms of the first batch the service accepted */
  first?: number
}

export type SessionStore = {
  get(): Session
  rotate(start: number): Session
  markFirstBatch(at: number): void
}

type StorageLike = { getItem(key: string): string | null; setItem(key: string, value: string): void }

export const STORAGE_KEY = 'bss:session:v1'
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function createSessionStore(storage: StorageLike | null, now: number, newId: () => string): SessionStore {
  let current: Session | null = null
  try {
    const saved = storage ? JSON.parse(storage.getItem(STORAGE_KEY) ?? 'null') : null
    if (
      saved && typeof saved.id === 'string' && UUID_RE.test(saved.id) &&
      typeof saved.start === 'number' && Number.isFinite(saved.start) && saved.start <= now &&
      (saved.first === undefined || (typeof saved.first === 'number' && Number.isFinite(saved.first)))
    ) {
      current = { id: saved.id, start: saved.start, first: saved.first }
    }
  } catch {
    current = null
  }
  const save = () => {
    try {
      storage?.setItem(STORAGE_KEY, JSON.stringify(current))
    } catch {
      // Quota or privacy mode: the session simply ends with the page.
    }
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
      return current
    },
    markFirstBatch(at: number) {
      current = { ...current!, first: at }
      save()
    },
  }
}
