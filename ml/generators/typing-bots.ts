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
  const latency = rng.chance(0.5)
    ? (
        (d: number) => () =>
          d + rng.uniform(0, 0.9)
      )(rng.pick([0, 1, 5, 10, 30, 50, 100]))
    : (
        (lo: number, hi: number) => () =>
          rng.uniform(lo, hi)
      )(rng.uniform(0, 80), rng.uniform(90, 300))
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

// ------------------------------------------------------ @forad/puppeteer-humanize

/** a sentence-like text: lower-case words, some capitals and digits, commas and a full stop at the end */
function sentenceText(rng: Rng, length: number): string {
  const letters = 'etaoinshrdlcumwfgypbvkjxqz'
  let out = ''
  while (out.length < length) {
    const words = rng.int(4, 12)
    for (let w = 0; w < words && out.length < length; w++) {
      const n = rng.int(1, 9)
      let word = ''
      for (let i = 0; i < n; i++) word += letters[Math.min(letters.length - 1, Math.floor(rng.next() ** 2 * letters.length))]
      if (w === 0 && rng.chance(0.7)) word = word[0]!.toUpperCase() + word.slice(1)
      if (rng.chance(0.03)) word = String(rng.int(1, 2030))
      out += word + (w < words - 1 ? (rng.chance(0.08) ? ', ' : ' ') : '. ')
    }
  }
  return out.slice(0, length).trimEnd()
}

const TERMINATION = new Set([...'.,?!'])
const PUNCTUATION = new Set([...`@#$%^&*()-+_=/[]{}:;|~<>"'`])

/**
 * `typeInto(element, text)` of @forad/puppeteer-humanize 1.1.8 (MIT), its
 * defaults replayed from the source: the package cannot be installed here (its
 * preinstall insists on pnpm), and it draws from its own unseeded Mersenne
 * Twister with real timers. Per element: hover (one move to the centre), wait
 * 100–200 ms, click with a 5–15 ms press, wait 200–800 ms. Per character: a 5 %
 * chance of a neighbouring key then Backspace (waits 100–200 and 150–400 ms),
 * 50–100 ms before punctuation, the key pressed with `element.type(char, {
 * delay: 5–15 })` (hold 5–15 ms), 50–150 ms after every key, 100–1000 ms more
 * after . , ? ! and 50–500 ms after punctuation, 50–500 ms at every 6th and
 * 10th position; 500–1000 ms when done. Its `rand` gives integers in [min, max].
 */
export function puppeteerHumanizeTyping(rng: Rng): Signal[] {
  const rand = (min: number, max: number) => Math.floor(rng.next() * (max - min + 1) + min)
  const chance = (p: number) => rand(0, 100) < p
  const rtt = roundTrip(rng)
  const late = () => rng.uniform(0, 1.5)
  const viewport = { w: rng.pick([1280, 1366, 1920]), h: rng.pick([720, 768, 1080]) }
  const events: Signal[] = []
  let t = rng.uniform(300, 3000)
  const press = (kc: KeyClass, hold: number) => {
    // ElementHandle.type focuses the element, then keyboard.press: down, sleep `delay`, up
    t += rtt() + rtt()
    events.push({ t, k: 'kd', kc })
    t += hold + late() + rtt()
    events.push({ t, k: 'ku', kc })
  }
  const wait = (min: number, max: number) => (t += rand(min, max) + late())
  const fieldCount = rng.int(1, 4)
  for (let f = 0; f < fieldCount; f++) {
    const w = rng.uniform(140, 420)
    const h = rng.uniform(28, 44)
    const centre = {
      x: Math.round(rng.uniform(w / 2 + 8, viewport.w - w / 2 - 8)),
      y: Math.round(rng.uniform(h / 2 + 8, viewport.h - h / 2 - 8)),
    }
    t += rtt()
    events.push({ t, k: 'mm', x: centre.x, y: centre.y })
    wait(100, 200)
    t += rtt()
    events.push({ t, k: 'md', x: centre.x, y: centre.y })
    t += rand(5, 15) + late() + rtt()
    events.push({ t, k: 'mu', x: centre.x, y: centre.y })
    events.push({ t, k: 'c', x: centre.x, y: centre.y, ox: 0, oy: 0 })
    wait(200, 800)
    const text = sentenceText(rng, rng.int(8, 120))
    let position = 0
    for (const ch of text) {
      const kc: KeyClass = ch === ' ' ? 'space' : /[0-9]/.test(ch) ? 'digit' : 'char'
      // getProximateChar: letters and digits have neighbours; the index may fall one past the list
      if (!TERMINATION.has(ch) && /[a-z0-9]/i.test(ch)) {
        const neighbours = 6
        if (rand(0, neighbours) < neighbours && chance(5)) {
          press(/[0-9]/.test(ch) ? 'digit' : 'char', rand(5, 15))
          wait(100, 200)
          press('back', rand(5, 15))
          wait(150, 400)
        }
      }
      if (PUNCTUATION.has(ch)) wait(50, 100)
      press(kc, rand(5, 15))
      wait(50, 150)
      if (TERMINATION.has(ch)) wait(100, 1000)
      if (PUNCTUATION.has(ch)) wait(50, 500)
      if ((position % 6 === 0 || position % 10 === 0) && chance(100)) wait(50, 500)
      position++
    }
    wait(500, 1000)
    t += rng.uniform(200, 5000)
  }
  return finishEvents(events, rng.pick([1, 10]))
}
