// Keyboard-only bot sessions: form fillers that focus a field by script and
// type into it, so the page sees keys and nothing else.
import type { KeyClass, Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { finishEvents, textKeys } from './visit'

type Press = { kc: KeyClass; down: number; up: number }

function toSignals(presses: readonly Press[], clockMs: number): Signal[] {
  const events: Signal[] = []
  for (const p of presses) {
    events.push({ t: p.down, k: 'kd', kc: p.kc })
    events.push({ t: Math.max(p.down, p.up), k: 'ku', kc: p.kc })
  }
  return finishEvents(events, Math.round(1 / clockMs))
}

/** one or more fields, typed one after the other with a pause between them */
function fields(rng: Rng): KeyClass[][] {
  return Array.from({ length: rng.int(1, 5) }, () => textKeys(rng, rng.int(5, 60)).filter((k) => k !== 'mod'))
}

/** one awaited CDP call (Input.dispatchKeyEvent) */
const roundTrip = (rng: Rng) => {
  const median = rng.uniform(0.3, 4)
  return () => rng.logNormal(median, 0.3)
}

/**
 * Puppeteer `page.type(selector, text, { delay })`: for each character
 * keyboard.press(), i.e. keydown, sleep `delay`, keyup, and the next keydown
 * right after. Hold = delay; down-to-down = delay plus two round trips.
 */
export function typingFixedDelay(rng: Rng): Signal[] {
  const delay = rng.pick([0, 5, 10, 20, 25, 30, 50, 50, 75, 100, 100, 120, 150, 200, 250])
  const rtt = roundTrip(rng)
  // setTimeout fires a little late, by a session-typical amount
  const late = rng.uniform(0, 1.5)
  const presses: Press[] = []
  let t = rng.uniform(100, 3000)
  for (const keys of fields(rng)) {
    for (const kc of keys) {
      const down = t + rtt()
      const up = down + (delay ? delay + rng.uniform(0, late) : 0) + rtt()
      presses.push({ kc, down, up })
      t = up
    }
    t += rng.uniform(100, 3000)
  }
  return toSignals(presses, rng.pick([0.1, 0.1, 1]))
}

/** a loop that types a key and sleeps a uniformly random delay in [a, b] (hold: a round trip, or its own random) */
export function typingUniformDelay(rng: Rng): Signal[] {
  const a = rng.uniform(10, 150)
  const b = a + rng.uniform(30, 350)
  const holdRange = rng.chance(0.5) ? null : ([rng.uniform(10, 60), rng.uniform(70, 150)] as const)
  const rtt = roundTrip(rng)
  const presses: Press[] = []
  let t = rng.uniform(100, 3000)
  for (const keys of fields(rng)) {
    for (const kc of keys) {
      t += rng.uniform(a, b)
      const hold = holdRange ? rng.uniform(holdRange[0], holdRange[1]) : rtt()
      presses.push({ kc, down: t, up: t + hold })
      t += hold
    }
    t += rng.uniform(200, 4000)
  }
  return toSignals(presses, rng.pick([0.1, 0.1, 1]))
}

/** keydown and keyup in the same millisecond: dispatchEvent pairs, or CDP with no delay on a 1 ms clock */
export function typingZeroHold(rng: Rng): Signal[] {
  const latency = rng.chance(0.5) ? ((d: number) => () => d + rng.uniform(0, 0.9))(rng.pick([0, 1, 5, 10, 30, 50, 100])) : ((lo: number, hi: number) => () => rng.uniform(lo, hi))(rng.uniform(0, 80), rng.uniform(90, 300))
  const presses: Press[] = []
  let t = rng.uniform(100, 3000)
  for (const keys of fields(rng)) {
    for (const kc of keys) {
      t += latency()
      const down = Math.floor(t)
      presses.push({ kc, down, up: down })
    }
    t += rng.uniform(50, 2000)
  }
  return toSignals(presses, 1)
}

/**
 * A recorded human rhythm replayed to the millisecond: every down and up at
 * the recording's times (shifted as a whole), whatever the text. One recording
 * serves many sessions, so identical rhythms recur across sessions; a single
 * session alone is as human as its recording.
 */
export function typingReplayedRhythm(rng: Rng, recordings: readonly Signal[][]): Signal[] {
  const source = recordings[rng.int(0, recordings.length - 1)]!
  const keys = source.filter((e) => e.k === 'kd' || e.k === 'ku')
  if (!keys.length) return []
  const shift = rng.int(100, 3000) - keys[0]!.t
  return keys.map((e) => ({ t: e.t + shift, k: e.k, kc: e.kc }))
}
