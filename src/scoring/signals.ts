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
export function withoutPenTwins(all: readonly Signal[]): readonly Signal[] {
  let twins = 0
  for (let i = 1; i < all.length; i++) if (penTwin(all[i - 1], all[i])) twins++
  return twins ? all.filter((s, i) => i === 0 || !penTwin(all[i - 1], s)) : all
}
