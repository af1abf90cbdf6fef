// Bots built on the cursor libraries bot authors install: their own path code
// runs here (seeded), and a page-visit script plays the points the way the
// library's browser driver would (see visit.ts for the delivery models).
import { path as ghostPath, GhostCursor } from 'ghost-cursor'
import { overshoot as ghostOvershoot } from 'ghost-cursor/lib/math'
import { path as gcpPath, overshoot as gcpOvershoot } from 'ghost-cursor-playwright/lib/math'
import { Cursor as GcpCursor } from 'ghost-cursor-playwright/lib/cursor'
import generateVector from '@ulixee/default-human-emulator/generateVector'
import DefaultHumanEmulator from '@ulixee/default-human-emulator'
import type { KeyClass, Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { withSeededGlobals } from './random'
import {
  type Box,
  type Point,
  type Script,
  type Visit,
  aimInMiddle,
  authorSleep,
  randomVisitOptions,
  runVisit,
  scriptedScroll,
} from './visit'
import { LAND_DEFAULTS, type LandSettings, windMouseLand, windMouseNpm } from './windmouse'

const dist = (a: Point, b: Point) => Math.hypot(b.x - a.x, b.y - a.y)

/**
 * A path of zero length makes the Bézier code divide by zero. The drivers send
 * each point in its own try/catch (ghost-cursor's moveMouse, the Playwright
 * fork's tracePath), so a NaN point fails in the browser and is skipped.
 */
const finitePoints = <P extends Point>(points: readonly P[]): P[] => points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))

/** the time one awaited CDP call takes (dispatch and acknowledgement), per session */
export function roundTrip(rng: Rng): () => number {
  const median = rng.uniform(0.8, 6)
  const sigma = rng.uniform(0.15, 0.5)
  return () => rng.logNormal(median, sigma)
}

/** scripts often sleep on top of what the library does, sometimes not at all */
function extraSleep(rng: Rng): () => number {
  if (rng.chance(0.3)) return () => 0
  return authorSleep(rng)
}

/** keys typed through the driver: down, hold, up, delay; the defaults of page.type/keyboard.type or a random delay */
function driverTyping(rng: Rng, rtt: () => number): (visit: Visit, keys: KeyClass[]) => void {
  const r = rng.next()
  const delay =
    r < 0.4
      ? () => 0
      : r < 0.7
        ? (
            (d) => () =>
              d
          )(rng.pick([10, 20, 50, 100, 150]))
        : (
            (a, b) => () =>
              rng.uniform(a, b)
          )(rng.uniform(20, 120), rng.uniform(150, 400))
  return (visit, keys) => {
    for (const kc of keys) {
      if (kc === 'mod') continue // page.type('A') sends no Shift
      const down = visit.t + rtt()
      const up = down + delay() + rtt()
      visit.key(kc, down, up)
      visit.t = up
    }
  }
}

// ---------------------------------------------------------------- ghost-cursor

/** ghost-cursor 1.4 (Xetera, ISC): `path()` Bézier points, played as GhostCursor.click plays them */
function ghostCursorScript(rng: Rng, useTimestamps: boolean): Script {
  const moveSpeed = rng.chance(0.3) ? rng.uniform(5, 60) : undefined
  const padding = rng.chance(0.6) ? 0 : rng.uniform(10, 80)
  const hesitate = rng.chance(0.6) ? 0 : rng.uniform(20, 300)
  const waitForClick = rng.chance(0.6) ? 0 : rng.uniform(20, 150)
  const moveDelay = rng.chance(0.7) ? 2000 : rng.uniform(0, 5000)
  const randomMoves = rng.chance(0.25)
  const scrollSpeed = rng.chance(0.5) ? 100 : rng.pick([10, 20, 40, 60, 80, 95])
  const rtt = roundTrip(rng)
  const extra = extraSleep(rng)
  const threshold = 500
  const radius: number = (GhostCursor as unknown as { OVERSHOOT_RADIUS: number }).OVERSHOOT_RADIUS ?? 120
  const spread: number = (GhostCursor as unknown as { OVERSHOOT_SPREAD: number }).OVERSHOOT_SPREAD ?? 10

  const play = (visit: Visit, to: Point & { width?: number; height?: number }, spreadOverride?: number) => {
    // path() returns TimedVector[] (with `timestamp`) when useTimestamps is set, Vector[] otherwise
    const points = finitePoints(
      withSeededGlobals(
        rng,
        () => visit.t,
        () => ghostPath(visit.pos, to, { spreadOverride, moveSpeed, useTimestamps }) as (Point & { timestamp?: number })[]
      )
    )
    if (!points.length) return
    if (useTimestamps) {
      const t0 = points[0]!.timestamp ?? 0
      visit.playTimed(
        points.map((p) => ({ x: p.x, y: p.y, t: (p.timestamp ?? t0) - t0 + rtt() })),
        true
      )
    } else visit.playPath(points, rtt)
  }
  return {
    moveTo(visit, dest, box) {
      // createCursor(page, start, performRandomMoves = true): idle moves to random page points, each followed by moveDelay × random
      if (randomMoves) {
        for (let i = rng.int(0, 2); i > 0; i--) {
          play(visit, { x: rng.next() * visit.viewport.w, y: rng.next() * visit.viewport.h })
          visit.sleep(2000 * rng.next())
        }
      }
      const to = box ? { ...dest, width: box.width, height: box.height } : dest
      if (dist(visit.pos, dest) > threshold) {
        const over = withSeededGlobals(
          rng,
          () => visit.t,
          () => ghostOvershoot(dest, radius)
        )
        play(visit, over)
        play(visit, to, spread)
      } else play(visit, to)
    },
    // getRandomBoxPoint() of spoof.js: uniform inside the box less the padding
    aim: (_visit, b) => {
      const pw = (b.width * padding) / 100
      const ph = (b.height * padding) / 100
      return { x: b.x + pw / 2 + rng.next() * (b.width - pw), y: b.y + ph / 2 + rng.next() * (b.height - ph) }
    },
    hold: () => waitForClick + rtt(),
    hesitate: () => hesitate + rtt(),
    sleep: () => moveDelay * rng.next() + extra(),
    scroll: rng.chance(0.5) ? (visit) => ghostScroll(rng, visit, scrollSpeed, rtt) : undefined,
    type: rng.chance(0.4) ? driverTyping(rng, rtt) : undefined,
    hover: 0.1,
  }
}

/**
 * GhostCursor.scroll(delta, { scrollSpeed }): wheel events of `scrollSpeed` px
 * (below 90), or few large ones (90–100; 100, the default, is one event for the
 * whole distance), the remainder added to the last, then scrollDelay 200 ms.
 */
function ghostScroll(rng: Rng, visit: Visit, scrollSpeed: number, rtt: () => number): void {
  const distance = rng.int(100, 3000)
  const sign = rng.chance(0.8) ? 1 : -1
  const step = scrollSpeed < 90 ? scrollSpeed : 90 + ((scrollSpeed - 90) * (distance - 90)) / 10
  const steps = Math.max(1, Math.floor(distance / step))
  const remainder = distance % step
  for (let i = 0; i < steps; i++) {
    visit.sleep(rtt())
    visit.wheel(sign * (step + (i === steps - 1 ? remainder : 0)))
  }
  visit.sleep(200)
}

// ---------------------------------------------------------- ghost-cursor-playwright

/** ghost-cursor-playwright 2.1 (reaz1995, MIT): its own `path()` (fixed width 100), overshoot past 500 px, page.mouse.move per point */
function ghostCursorPlaywrightScript(rng: Rng): Script {
  const padding = rng.chance(0.6) ? 0 : rng.uniform(10, 80)
  const waitBeforeClick: [number, number] = rng.chance(0.6) ? [0, 0] : [rng.int(0, 100), rng.int(100, 400)]
  const waitBetweenClick: [number, number] = rng.chance(0.7) ? [20, 50] : [rng.int(30, 80), rng.int(90, 200)]
  const randomMoves = rng.chance(0.3)
  const rtt = rtt2(rng)
  const extra = authorSleep(rng)
  // utils.randomValue of the package: an integer in [min, max)
  const randomValue = (min: number, max: number) => ~~(rng.next() * (~~max - Math.ceil(min))) + Math.ceil(min)
  const trace = (visit: Visit, to: Point, spread?: number) =>
    visit.playPath(
      finitePoints(
        withSeededGlobals(
          rng,
          () => visit.t,
          () => gcpPath(visit.pos, to, spread) as Point[]
        )
      ),
      rtt
    )
  return {
    moveTo(visit, dest, box) {
      if (randomMoves) {
        // actions.randomMove(value): random viewport points while Math.random() > 0.7
        while (rng.next() > 0.7) {
          trace(visit, { x: rng.next() * visit.viewport.w, y: rng.next() * visit.viewport.h })
          visit.sleep(randomValue(20, 80))
        }
      }
      if (!box || dist(visit.pos, dest) <= 500) return trace(visit, dest)
      const over = withSeededGlobals(
        rng,
        () => visit.t,
        () => gcpOvershoot(dest, 120)
      )
      trace(visit, over)
      trace(visit, { ...dest, width: box.width, height: box.height } as Point, 10)
    },
    aim: (_visit, b) =>
      withSeededGlobals(
        rng,
        () => 0,
        () => GcpCursor.prototype.getRandomPointInsideElem.call(null, b, padding)
      ),
    hold: () => randomValue(...waitBetweenClick) + rtt(),
    hesitate: () => randomValue(...waitBeforeClick) + rtt(),
    sleep: extra,
    scroll: rng.chance(0.5) ? (visit) => scriptedScroll(rng, visit) : undefined,
    type: rng.chance(0.4) ? driverTyping(rng, rtt) : undefined,
    hover: 0.1,
  }
}

/** Playwright's page.mouse.move awaits one CDP call per point */
const rtt2 = roundTrip

// ------------------------------------------------------------ @ulixee/default-human-emulator

type HumanEmulatorStatics = {
  overshootSpread: number
  overshootRadius: number
  overshootThreshold: number
  minMoveVectorPoints: number
  maxMoveVectorPoints: number
  maxDelayBetweenInteractions: number
  maxScrollDelayMillis: number
}
type KeyboardStep = { keyboardDelayBetween: number; keyboardKeyupDelay: number }
type EmulatorInstance = {
  calculateMillisPerChar(): number
  getKeyboardCommandWithDelay(command: { string: string }, millisPerChar: number): KeyboardStep
}

/**
 * Ulixee Hero's DefaultHumanEmulator 2.0.0-alpha.34 (MIT): the package's own
 * generateVector() (ghost-cursor's curve, 5–50 points, overshoot past 250 px)
 * and its keyboard timing (getKeyboardCommandWithDelay); the interaction loop
 * (playInteractions) needs Hero's browser helper and real timers, so its
 * sleeps are replayed from its constants: up to 200 ms between interaction
 * groups, a random 0–100 ms click delay, targets in the middle third of a box.
 */
function ulixeeScript(rng: Rng): Script {
  const E = DefaultHumanEmulator as unknown as HumanEmulatorStatics & { new (): EmulatorInstance }
  const emulator = withSeededGlobals(
    rng,
    () => 0,
    () => new E()
  )
  const rtt = roundTrip(rng)
  const extra = extraSleep(rng)
  const perChar = withSeededGlobals(
    rng,
    () => 0,
    () => emulator.calculateMillisPerChar()
  )
  return {
    moveTo(visit, dest, box) {
      const vector = withSeededGlobals(
        rng,
        () => visit.t,
        () =>
          generateVector(visit.pos, dest, box ? box.width : 1, E.minMoveVectorPoints, E.maxMoveVectorPoints, {
            threshold: E.overshootThreshold,
            radius: E.overshootRadius,
            spread: E.overshootSpread,
          })
      )
      visit.playPath(vector, rtt)
    },
    // createPointInRect with paddingPercent 33: an integer point in the middle third
    aim: (_visit, b) => ({
      x: Math.round(b.x + b.width * 0.33 + rng.next() * b.width * 0.34),
      y: Math.round(b.y + b.height * 0.33 + rng.next() * b.height * 0.34),
    }),
    hold: () => Math.floor(rng.next() * 100) + rtt(),
    hesitate: rtt,
    sleep: () => rng.next() * E.maxDelayBetweenInteractions + extra(),
    scroll: (visit) => {
      // scroll(): wheel steps of a generated vector with up to 15 ms between them
      const total = rng.int(200, 2500) * (rng.chance(0.8) ? 1 : -1)
      const steps = rng.int(10, 25)
      let done = 0
      for (let i = 1; i <= steps; i++) {
        const next = Math.round((total * (1 - Math.cos((Math.PI * i) / steps))) / 2)
        visit.sleep(rng.next() * E.maxScrollDelayMillis + rtt())
        if (next !== done) visit.wheel(next - done)
        done = next
      }
    },
    type: (visit, keys) => {
      for (const kc of keys) {
        const step = withSeededGlobals(
          rng,
          () => visit.t,
          () => emulator.getKeyboardCommandWithDelay({ string: 'a' }, perChar)
        )
        const down = visit.t + rtt()
        const up = down + step.keyboardKeyupDelay
        visit.key(kc, down, up)
        visit.t = up + Math.max(0, step.keyboardDelayBetween)
      }
    },
    hover: 0.1,
  }
}

// ------------------------------------------------------------------- WindMouse

/** windmouse@1.0.5 with the settings of its README (random small steps) or Land's defaults; the script sleeps each step's wait */
function windMouseNpmScript(rng: Rng): Script {
  const readme = rng.chance(0.5)
  const settings = readme
    ? {
        gravity: Math.ceil(rng.next() * 10),
        wind: Math.ceil(rng.next() * 10),
        minWait: 2,
        maxWait: Math.ceil(rng.next() * 5),
        maxStep: Math.ceil(rng.next() * 3),
        targetArea: Math.ceil(rng.next() * 10),
      }
    : { gravity: 9, wind: 3, minWait: rng.int(2, 5), maxWait: rng.int(6, 15), maxStep: rng.int(10, 20), targetArea: rng.int(8, 15) }
  const rtt = roundTrip(rng)
  const extra = authorSleep(rng)
  const middle = aimInMiddle(rng)
  return {
    moveTo(visit, dest) {
      const points = windMouseNpm(() => rng.next(), { startX: visit.pos.x, startY: visit.pos.y, endX: dest.x, endY: dest.y, ...settings })
      // setTimeout(wait) then an awaited dispatch: waits add up with the round trips
      let t = 0
      visit.playTimed(points.map(([x, y, wait]) => ({ x, y, t: (t = Math.max(t, wait) + rtt()) })))
    },
    aim: (visit, b) => {
      const p = middle(visit, b)
      return { x: Math.round(p.x), y: Math.round(p.y) }
    },
    hold: () => rng.uniform(30, 150),
    hesitate: () => rng.uniform(0, 300),
    sleep: extra,
    scroll: rng.chance(0.5) ? (visit) => scriptedScroll(rng, visit) : undefined,
    type: rng.chance(0.3) ? driverTyping(rng, rtt) : undefined,
  }
}

/** Land's WindMouse as Python/Selenium scripts run it: a fixed sleep per step (time.sleep(0.005…0.02)) plus timer slack */
function windMouseLandScript(rng: Rng): Script {
  const settings: LandSettings = rng.chance(0.5)
    ? LAND_DEFAULTS
    : { gravity: rng.uniform(5, 12), wind: rng.uniform(1, 6), maxStep: rng.uniform(8, 25), dampedDistance: rng.uniform(8, 20) }
  const stepSleep = rng.pick([5, 8, 10, 10, 15, 16, 20])
  const slack = rng.uniform(0.05, 1.5)
  const rtt = roundTrip(rng)
  const extra = authorSleep(rng)
  return {
    moveTo(visit, dest) {
      visit.playPath(
        windMouseLand(() => rng.next(), visit.pos, dest, settings),
        () => stepSleep + rng.uniform(0, slack) + rtt()
      )
    },
    aim: (_visit, b) => ({
      x: Math.round(b.x + rng.uniform(0.15, 0.85) * b.width),
      y: Math.round(b.y + rng.uniform(0.15, 0.85) * b.height),
    }),
    hold: () => rng.uniform(50, 150),
    hesitate: () => rng.uniform(0, 500),
    sleep: extra,
    scroll: rng.chance(0.5) ? (visit) => scriptedScroll(rng, visit) : undefined,
  }
}

export const LIBRARY_FAMILIES = {
  ghost_cursor: (rng: Rng): Signal[] => runVisit(rng, ghostCursorScript(rng, false)),
  ghost_cursor_timestamps: (rng: Rng): Signal[] => runVisit(rng, ghostCursorScript(rng, true)),
  ghost_cursor_playwright: (rng: Rng): Signal[] => runVisit(rng, ghostCursorPlaywrightScript(rng)),
  ulixee_hero: (rng: Rng): Signal[] => runVisit(rng, ulixeeScript(rng)),
  windmouse_npm: (rng: Rng): Signal[] => runVisit(rng, windMouseNpmScript(rng)),
  windmouse_land: (rng: Rng): Signal[] => runVisit(rng, windMouseLandScript(rng), randomVisitOptions(rng)),
}

export type { Box }
