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
