// A fingerprint of the shape of a session's pointer or touch trajectory, for
// the ingest module to find the same trajectory in two sessions of one org.
// docs/scoring.md, "Trajectory fingerprint", has the rule and the measurements.
import { pointerStrokes } from './features'
import type { Signal } from './signals'

type Path = { readonly x: ArrayLike<number>; readonly y: ArrayLike<number> }

/** the relative move from sample i - 1 to sample i, rounded with floor(d + 0.25) */
const step = (v: ArrayLike<number>, i: number) => Math.floor(v[i] - v[i - 1] + 0.25)

/** every move of the strokes */
const allMoves = (strokes: readonly Path[]) => strokes.reduce((n, s) => n + s.x.length - 1, 0)

/**
 * Moves that tell something: those whose rounded vector differs from the
 * previous move of the stroke (the first move of a stroke: differs from no
 * move). A resting finger (0,0 again and again) or a creep of the same 1 px
 * step adds samples but hardly any information, so it must not make a short
 * trajectory look long enough to be unique.
 */
function informativeMoves(strokes: readonly Path[]): number {
  let n = 0
  for (const { x, y } of strokes) {
    let px = 0
    let py = 0
    for (let i = 1; i < x.length; i++) {
      const dx = step(x, i)
      const dy = step(y, i)
      if (dx !== px || dy !== py) n++
      px = dx
      py = dy
    }
  }
  return n
}

type Modality = { prefix: string; strokes: number; minMoves: number; moves: (strokes: readonly Path[]) => number }

/** mouse: as before touch was covered, so every stored `tf1:` value stays valid (stroke splitting depends on gaps, which a time shift keeps) */
const POINTER: Modality = { prefix: 'tf1:', strokes: 3, minMoves: 30, moves: allMoves }
/** touch: swipes are short (synthetic flings: median 9 samples), so more strokes; only informative moves count */
const TOUCH: Modality = { prefix: 'tt1:', strokes: 5, minMoves: 20, moves: informativeMoves }

/**
 * cyrb53-style 64-bit hash, stable across runtimes, fed one character (UTF-16 code unit) at a time so that
 * a trajectory is hashed without building its text (the text and its parts were most of a fingerprint's time).
 */
class Hash64 {
  private h1 = 0xdeadbeef
  private h2 = 0x41c6ce57

  char(c: number): void {
    this.h1 = Math.imul(this.h1 ^ c, 2654435761)
    this.h2 = Math.imul(this.h2 ^ c, 1597334677)
  }

  /** the characters of `${v}` for an integer v */
  int(v: number): void {
    if (!(Math.abs(v) < 1e9)) {
      const text = `${v}`
      for (let i = 0; i < text.length; i++) this.char(text.charCodeAt(i))
      return
    }
    if (v < 0) this.char(MINUS)
    let a = Math.abs(v)
    let scale = 1
    while (scale * 10 <= a) scale *= 10
    for (; scale >= 1; scale /= 10) {
      const d = Math.floor(a / scale)
      this.char(ZERO + d)
      a -= d * scale
    }
  }

  hex(): string {
    let h1 = this.h1
    let h2 = this.h2
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
    return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0')
  }
}

const ZERO = 48
const MINUS = 45
const COMMA = 44
const SEMICOLON = 59
const BAR = 124

/**
 * The hash of the strokes' shapes: relative moves only, so a constant position offset vanishes, and no
 * times, so a constant time shift does too. Moves are rounded with floor(d + 0.25): boundaries sit at
 * .75 px, away from the grids device pixels put coordinates on (1, ½, ⅓, ⅘). The characters hashed are
 * those of the text every stored fingerprint was made from: each stroke's moves as `dx,dy` joined by `;`,
 * the strokes joined by `|`.
 */
export function shapesHash(strokes: readonly Path[]): string {
  const h = new Hash64()
  for (let s = 0; s < strokes.length; s++) {
    if (s > 0) h.char(BAR)
    const { x, y } = strokes[s]
    for (let i = 1; i < x.length; i++) {
      if (i > 1) h.char(SEMICOLON)
      h.int(step(x, i))
      h.char(COMMA)
      h.int(step(y, i))
    }
  }
  return h.hex()
}

/**
 * Touch strokes: the positions of one contact from `ts` to `te`, in arrival
 * order. Times are not read at all, so a replay that re-times its events (CDP
 * re-dispatch, timer jitter, equal timestamps) keeps every stroke and sample;
 * the `ts`/`te` markers bound the strokes. A `tm` without an open stroke
 * starts one (the touch began before recording). Events without a finite
 * position are skipped; a `te` without one still ends its stroke.
 */
export function touchStrokes(signals: readonly Signal[]): Path[] {
  const strokes: Path[] = []
  let x: number[] = []
  let y: number[] = []
  const close = () => {
    if (x.length) strokes.push({ x, y })
    x = []
    y = []
  }
  for (const s of signals) {
    const k = s.k
    if (k !== 'ts' && k !== 'tm' && k !== 'te') continue
    if (k === 'ts') close()
    if (typeof s.x === 'number' && typeof s.y === 'number' && Number.isFinite(s.x) && Number.isFinite(s.y)) {
      x.push(s.x)
      y.push(s.y)
    }
    if (k === 'te') close()
  }
  close()
  return strokes
}

/** the `count` longest strokes (most samples; ties to the earlier), in time order */
function longest<T extends Path>(strokes: readonly T[], count: number): T[] {
  return strokes
    .map((stroke, order) => ({ stroke, order }))
    .sort((a, b) => b.stroke.x.length - a.stroke.x.length || a.order - b.order)
    .slice(0, count)
    .sort((a, b) => a.order - b.order)
    .map((s) => s.stroke)
}

/** the fingerprint of one modality's strokes, or null when its longest strokes hold too few moves */
function modalityPrint(strokes: readonly Path[], { prefix, strokes: count, minMoves, moves }: Modality): string | null {
  const chosen = longest(strokes, count)
  if (moves(chosen) < minMoves) return null
  return `${prefix}${shapesHash(chosen)}`
}

/**
 * Hash of the quantised relative moves of the longest strokes, or null:
 * - the pointer trajectory (`tf1:`) when the 3 longest mouse strokes hold
 *   ≥ 30 moves;
 * - else the touch trajectory (`tt1:`) when the 5 longest touch strokes hold
 *   ≥ 20 informative moves;
 * - else null.
 * Pointer first keeps every pointer fingerprint stored before touch was
 * covered unchanged; the prefixes keep the two modalities from ever matching.
 */
export function trajectoryFingerprint(signals: readonly Signal[]): string | null {
  return modalityPrint(pointerStrokes(signals), POINTER) ?? modalityPrint(touchStrokes(signals), TOUCH)
}
