// A fingerprint of the shape of a session's pointer trajectory, for the
// ingest module to find the same trajectory in two sessions of one org.
import { type Stroke, pointerStrokes } from './features'
import type { Signal } from './signals'

const LONGEST_STROKES = 3
const MIN_MOVES = 30

/**
 * Relative moves only, so a constant position offset vanishes, and no times,
 * so a constant time shift does too (stroke splitting depends on gaps, which
 * a shift keeps). Moves are rounded with floor(d + 0.25): boundaries sit at
 * .75 px, away from the grids device pixels put coordinates on (1, ½, ⅓, ⅘).
 */
function strokeShape({ x, y }: Stroke): string {
  const parts: string[] = []
  for (let i = 1; i < x.length; i++) parts.push(`${Math.floor(x[i] - x[i - 1] + 0.25)},${Math.floor(y[i] - y[i - 1] + 0.25)}`)
  return parts.join(';')
}

/** cyrb53-style 64-bit string hash, stable across runtimes */
function hash64(text: string): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0')
}

/** hash of the quantised relative moves of the longest strokes (in time order), or null with fewer than 30 moves in them */
export function trajectoryFingerprint(signals: readonly Signal[]): string | null {
  const longest = pointerStrokes(signals)
    .map((stroke, order) => ({ stroke, order }))
    .sort((a, b) => b.stroke.t.length - a.stroke.t.length || a.order - b.order)
    .slice(0, LONGEST_STROKES)
    .sort((a, b) => a.order - b.order)
  const moves = longest.reduce((n, s) => n + s.stroke.t.length - 1, 0)
  if (moves < MIN_MOVES) return null
  return `tf1:${hash64(longest.map((s) => strokeShape(s.stroke)).join('|'))}`
}
