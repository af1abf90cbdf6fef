// The compact signal event of POST /v1/ingest (API.md) plus the optional
// fields of FEATURES.md. Shared by the ingest validator, the feature
// extractor (server and browser SDK) and the synthetic data generator.

export const SIGNAL_KINDS = ['mm', 'md', 'mu', 'c', 'kd', 'ku', 's', 'ts', 'tm', 'te', 'f', 'b', 'v', 'r'] as const
export type SignalKind = (typeof SIGNAL_KINDS)[number]

export const KEY_CLASSES = ['char', 'digit', 'space', 'enter', 'back', 'mod', 'nav', 'other'] as const
export type KeyClass = (typeof KEY_CLASSES)[number]

export type Signal = {
  /** ms since the session's start */
  t: number
  k: SignalKind
  /** pointer/touch position, CSS px */
  x?: number
  y?: number
  /** scroll delta, CSS px */
  dy?: number
  /** key class; key values are never sent */
  kc?: KeyClass
  /** the browser's isTrusted; omitted = true */
  tr?: boolean
  /** click position inside its target, −1…1 from the centre */
  ox?: number
  oy?: number
  /** touch pressure/force */
  p?: number
  /** touch radius, CSS px */
  r?: number
  /** coalesced pointer samples behind a move event */
  n?: number
  /** 1 when screen and client coordinates are equal */
  sc?: 0 | 1 | boolean
}

/** a pen's touch event follows its pointer event within this (one event, two interfaces) */
const PEN_TWIN_MS = 2

const isTouchEvent = (k: string) => k === 'ts' || k === 'tm' || k === 'te'
/** a touch event at the place of the pointer event just before it, under PEN_TWIN_MS later: the same contact */
const penTwin = (a: Signal, b: Signal) =>
  isTouchEvent(b.k) &&
  (a.k === 'mm' || a.k === 'md' || a.k === 'mu') &&
  Number.isFinite(a.x) &&
  a.x === b.x &&
  a.y === b.y &&
  b.t - a.t >= 0 &&
  b.t - a.t < PEN_TWIN_MS

/**
 * Without the touch events that repeat a pen's pointer events. Safari and Chrome on Android fire both
 * for one pen contact; the SDK records the pen once since 1.0.1 (src/sdk/events.ts, PenTouches), but a
 * copy bundled or cached before that, or another collector, sends both: every move with a twin under
 * 2 ms later, read as a script's event burst. The twins say nothing the pointer events do not.
 */
function withoutPenTwins(all: readonly Signal[]): readonly Signal[] {
  const twin = (s: Signal, i: number) => i > 0 && penTwin(all[i - 1], s)
  return all.some(twin) ? all.filter((s, i) => !twin(s, i)) : all
}

/** untrusted key events this close to another untrusted key event came from one script's run: a form filler */
const FILL_BURST_MS = 5
/**
 * How long a filler's keyup may follow its keydown. Event.timeStamp is an event's creation time, and a filler
 * that creates each event as it dispatches it (Bitwarden: keydown, keypress, keyup) stamps the keyup after
 * the page's keydown and keypress handlers ran, which on a heavy page or a slow phone take milliseconds.
 */
const FILL_HOLD_MS = 100
const keyEvent = (s: Signal) => s.k === 'kd' || s.k === 'ku'
const untrustedKey = (s: Signal) => s.tr === false && keyEvent(s)
/** a key event that names no key (a filler's `new KeyboardEvent('keydown')`): it types nothing a page could read */
const keyless = (s: Signal) => (s.kc ?? 'other') === 'other'

/**
 * Without the key events a form filler dispatches. Password managers (Proton Pass, Bitwarden, …) set a
 * field's value and dispatch keydown, input and keyup on it for the page's sake: untrusted key events
 * microseconds apart, no hand in them. Counted, one filled login made every person `suspicious` at best
 * (`untrusted_events`) and a short visit a `bot`. Left out: untrusted key events in a burst (each within
 * FILL_BURST_MS of another), also when the page's handlers ran between a keydown and its keyup: presses
 * that name no key, each keyup within FILL_HOLD_MS of its keydown, chained by a burst (Bitwarden's
 * keydown, keyup, keydown, keyup per field: the middle two in a burst). An untrusted key event on its
 * own, presses of named keys or at a typing pace (no burst between them), and every untrusted pointer,
 * touch or scroll event still count. A script that types this way into a page moves nothing: without its keys
 * such a visit has nothing left to judge (`insufficient_data`), never `human_verified`.
 */
function withoutFormFill(all: readonly Signal[]): readonly Signal[] {
  const keys: number[] = []
  for (let i = 0; i < all.length; i++) if (untrustedKey(all[i]!)) keys.push(i)
  if (keys.length < 2) return all
  // chains of untrusted key events: a burst link, or a keyless press (keydown then keyup) held up by the page
  const burst = (p: number, c: number) => Math.abs(all[c]!.t - all[p]!.t) < FILL_BURST_MS
  const press = (p: number, c: number) => {
    const d = all[p]!
    const u = all[c]!
    if (d.k !== 'kd' || u.k !== 'ku' || !keyless(d) || !keyless(u) || u.t - d.t < 0 || u.t - d.t >= FILL_HOLD_MS) return false
    // p and c are consecutive untrusted key events, so any key event between them is the person's
    for (let i = p + 1; i < c; i++) if (keyEvent(all[i]!)) return false
    return true
  }
  const drop = new Set<number>()
  let chain: number[] = []
  let bursts = 0
  const close = () => {
    // a held press alone is a typist's as much as a filler's: a chain needs a burst
    if (chain.length >= 2 && bursts > 0) for (const i of chain) drop.add(i)
    chain = []
    bursts = 0
  }
  for (let j = 0; j < keys.length; j++) {
    const c = keys[j]!
    const p = chain[chain.length - 1]
    if (p !== undefined && burst(p, c)) bursts++
    else if (p === undefined || !press(p, c)) close()
    chain.push(c)
  }
  close()
  return drop.size ? all.filter((_, i) => !drop.has(i)) : all
}

/**
 * The events the person made, as the scorer reads them: without a pen's touch twins and without a form
 * filler's key events (the stored batches keep everything; the client vector is computed on all of it,
 * as the SDK computed it).
 */
export const ownInput = (all: readonly Signal[]): readonly Signal[] => withoutFormFill(withoutPenTwins(all))
