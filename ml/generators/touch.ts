// A mobile-emulation bot (Puppeteer or Playwright with `hasTouch`): taps
// through the driver's touchscreen.tap() and scrolls with swipes a script
// plays as touchStart, eased touchMoves along a Bézier, touchEnd. The contact
// is what the driver sends: Puppeteer rounds positions to integers and sends
// radius 0.5 and force 0.5; Playwright sends the protocol defaults, radius 1
// and force 1 (some scripts pass their own constant).
import { Bezier } from 'bezier-js'
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { EASINGS, type EasingName } from './humanizer'
import { authorSleep, finishEvents, randomBox } from './visit'

const PHONES = [
  { w: 390, h: 844 },
  { w: 393, h: 851 },
  { w: 412, h: 915 },
  { w: 375, h: 667 },
  { w: 430, h: 932 },
] as const

export function touchBezierSwipe(rng: Rng): Signal[] {
  const viewport = rng.pick(PHONES)
  const driver = rng.pick(['puppeteer', 'playwright', 'custom'] as const)
  const contact =
    driver === 'puppeteer'
      ? { r: 0.5, p: 0.5 }
      : driver === 'playwright'
        ? { r: 1, p: 1 }
        : { r: rng.pick([5, 10, 11.5, 20]), p: rng.pick([0.5, 1]) }
  const place = (v: number) => (driver === 'puppeteer' ? Math.round(v) : Math.round(v * 10) / 10)
  const median = rng.uniform(0.8, 6)
  const rtt = () => rng.logNormal(median, 0.3)
  const sleep = authorSleep(rng)
  const easing = EASINGS[rng.pick(Object.keys(EASINGS) as EasingName[])]
  const frameMs = rng.chance(0.7) ? 1000 / 60 : rng.pick([10, 16, 20, 30])
  const events: Signal[] = []
  const touch = (k: 'ts' | 'tm' | 'te', t: number, x: number, y: number) => events.push({ t, k, x: place(x), y: place(y), ...contact })
  let t = rng.uniform(300, 3000)
  const end = t + rng.uniform(5000, 60_000)
  while (t < end && events.length < 9000) {
    if (rng.chance(0.55)) {
      // touchscreen.tap(x, y): touchStart and touchEnd awaited one after the other, then the compatibility click
      const b = randomBox(rng, { w: viewport.w, h: viewport.h })
      const x = b.x + b.width * rng.uniform(0.2, 0.8)
      const y = b.y + b.height * rng.uniform(0.2, 0.8)
      touch('ts', t, x, y)
      t += rtt()
      touch('te', t, x, y)
      t += rtt()
      const c = { x: b.x + b.width / 2, y: b.y + b.height / 2 }
      events.push({
        t,
        k: 'c',
        x: place(x),
        y: place(y),
        ox: Math.max(-1, Math.min(1, (x - c.x) / (b.width / 2))),
        oy: Math.max(-1, Math.min(1, (y - c.y) / (b.height / 2))),
      })
    } else {
      // a scripted swipe up (or back down): an eased Bézier from a lower to a higher point over 150–700 ms
      const up = rng.chance(0.8)
      const from = { x: viewport.w * rng.uniform(0.3, 0.7), y: viewport.h * (up ? rng.uniform(0.6, 0.85) : rng.uniform(0.2, 0.4)) }
      const length = viewport.h * rng.uniform(0.2, 0.5) * (up ? -1 : 1)
      const to = { x: from.x + rng.normal(0, 15), y: from.y + length }
      const bend = rng.uniform(0, 0.15) * Math.abs(length)
      const curve = new Bezier(
        from,
        { x: from.x + rng.normal(0, bend), y: from.y + length / 3 },
        { x: to.x + rng.normal(0, bend), y: from.y + (2 * length) / 3 },
        to
      )
      const duration = rng.uniform(150, 700)
      touch('ts', t, from.x, from.y)
      const start = t
      // a timer loop: each move waits for its tick and for the previous dispatch to return
      for (let u = frameMs; u < duration; u += frameMs) {
        const p = curve.get(easing(u / duration))
        t = Math.max(t, start + u) + rtt()
        touch('tm', t, p.x, p.y)
      }
      t = Math.max(t, start + duration) + rtt()
      touch('tm', t, to.x, to.y)
      t += rtt()
      touch('te', t, to.x, to.y)
    }
    t += sleep()
  }
  return finishEvents(events, rng.chance(0.5) ? 10 : 1)
}
