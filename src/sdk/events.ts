// DOM events → compact signal fields (API.md). Pure functions over the few event
// properties they read, so they can be tested without a browser.
import type { KeyClass, Signal } from '../scoring/signals'

export type SignalFields = Omit<Signal, 't'>

const MOD_KEYS = new Set(['Shift', 'Control', 'Alt', 'AltGraph', 'Meta', 'CapsLock', 'Fn', 'OS', 'Super', 'Hyper'])
const NAV_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown', 'Tab', 'Escape'])

/** The key's class; the key value itself never leaves this function. */
export function keyClass(key: string | undefined): KeyClass {
  if (typeof key !== 'string' || key.length === 0) return 'other'
  if (key === ' ' || key === 'Spacebar') return 'space'
  // One user-perceived character (letters outside the BMP are two UTF-16 units).
  if ([...key].length === 1) return /\p{Nd}/u.test(key) ? 'digit' : 'char'
  if (key === 'Enter') return 'enter'
  if (key === 'Backspace' || key === 'Delete') return 'back'
  if (MOD_KEYS.has(key)) return 'mod'
  if (NAV_KEYS.has(key)) return 'nav'
  return 'other'
}

const r1 = (v: number) => Math.round(v * 10) / 10
const r3 = (v: number) => Math.round(v * 1000) / 1000
const clamp1 = (v: number) => (v < -1 ? -1 : Math.min(v, 1))
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

type PointerLike = {
  clientX: number
  clientY: number
  screenX: number
  screenY: number
  isTrusted: boolean
  getCoalescedEvents?: () => ArrayLike<unknown>
}

function untrusted(out: SignalFields, e: { isTrusted: boolean }): SignalFields {
  if (e.isTrusted === false) out.tr = false
  return out
}

function position(kind: Signal['k'], e: PointerLike): SignalFields {
  const out: SignalFields = { k: kind, x: r1(e.clientX), y: r1(e.clientY) }
  // Real pointers almost never have screen == client coordinates (the window has chrome and an offset).
  if (e.screenX === e.clientX && e.screenY === e.clientY) out.sc = 1
  return out
}

export function moveSignal(e: PointerLike): SignalFields {
  const out = position('mm', e)
  // at least the event itself: WebKit gives a move it fires itself (after a scroll, the pointer still) an empty list
  if (typeof e.getCoalescedEvents === 'function') out.n = Math.max(1, e.getCoalescedEvents().length)
  return untrusted(out, e)
}

export function buttonSignal(kind: 'md' | 'mu', e: PointerLike): SignalFields {
  return untrusted(position(kind, e), e)
}

type Rect = { left: number; top: number; width: number; height: number }

/** A click and where it landed inside its target, −1…1 from the centre on each axis. */
export function clickSignal(e: PointerLike & { detail?: number }, rect: Rect | null): SignalFields {
  // detail 0: activated from the keyboard (Enter/Space on a button), so there is no pointer position.
  if (e.detail === 0 && e.clientX === 0 && e.clientY === 0) return untrusted({ k: 'c' }, e)
  const out = position('c', e)
  if (rect && rect.width > 0 && rect.height > 0) {
    out.ox = r3(clamp1((e.clientX - (rect.left + rect.width / 2)) / (rect.width / 2)))
    out.oy = r3(clamp1((e.clientY - (rect.top + rect.height / 2)) / (rect.height / 2)))
  }
  return untrusted(out, e)
}

/** A key event; null for the keydowns the OS repeats while a key is held (`repeat`): they are not presses. */
export function keySignal(kind: 'kd' | 'ku', e: { key?: string; isTrusted: boolean; repeat?: boolean }): SignalFields | null {
  if (kind === 'kd' && e.repeat === true) return null
  return untrusted({ k: kind, kc: keyClass(e.key) }, e)
}

const LINE_PX = 16

/** Wheel delta in CSS px whatever the deltaMode (0 px, 1 lines, 2 pages). */
export function scrollSignal(e: { deltaY: number; deltaMode: number; isTrusted: boolean }, pageHeight: number): SignalFields {
  const factor = e.deltaMode === 1 ? LINE_PX : e.deltaMode === 2 ? pageHeight || 800 : 1
  return untrusted({ k: 's', dy: r1((num(e.deltaY) ? e.deltaY : 0) * factor) }, e)
}

type TouchLike = { clientX: number; clientY: number; radiusX?: number; radiusY?: number; force?: number }
type TouchId = { identifier: number; touchType?: string }

/**
 * The touches that are a pen's. A pen on a touch screen (Apple Pencil in Safari, a stylus in Chrome on
 * Android) fires pointer events *and* touch events for one contact. Recorded from both, every move had
 * a twin under 2 ms later, which the scorer rightly reads as a script's event burst: a real person
 * with a pen scored as a bot. The pen is recorded once, from its pointer events (`mm`/`md`/`mu`, as a
 * mouse; a hovering pen fires no touch events), and its touch events are skipped. A pen touch is one
 * that says so (`touchType: 'stylus'`, Safari) or the first touch to start while a pen is down (the
 * pointer event comes first; Chrome has no `touchType`).
 */
export class PenTouches {
  private readonly pen = new Set<number>()
  private claim = false

  /** pointerdown / pointerup / pointercancel of a pen */
  penDown(down: boolean): void {
    this.claim = down
  }

  /** the changed touches that are not a pen's; call on every touch event, in order */
  fingers<T extends TouchId>(kind: 'ts' | 'tm' | 'te', changed: ArrayLike<T>): T[] {
    const out: T[] = []
    for (let i = 0; i < changed.length; i++) {
      const t = changed[i]
      if (kind === 'ts' && (t.touchType === 'stylus' || this.claim)) {
        this.claim = false
        this.pen.add(t.identifier)
      }
      if (!this.pen.has(t.identifier)) out.push(t)
      if (kind === 'te') this.pen.delete(t.identifier)
    }
    return out
  }
}

export function touchSignal(kind: 'ts' | 'tm' | 'te', e: { changedTouches?: ArrayLike<TouchLike>; isTrusted: boolean }): SignalFields {
  const touch = e.changedTouches && e.changedTouches.length > 0 ? e.changedTouches[0] : undefined
  const out: SignalFields = { k: kind }
  if (touch) {
    out.x = r1(touch.clientX)
    out.y = r1(touch.clientY)
    if (num(touch.radiusX) && num(touch.radiusY)) out.r = r1((touch.radiusX + touch.radiusY) / 2)
    if (num(touch.force)) out.p = r3(touch.force)
  }
  return untrusted(out, e)
}

export function plainSignal(kind: 'f' | 'b' | 'v' | 'r', e: { isTrusted: boolean }): SignalFields {
  return untrusted({ k: kind }, e)
}
