import { describe, expect, it } from 'bun:test'
import { buttonSignal, clickSignal, keyClass, keySignal, moveSignal, PenTouches, scrollSignal, touchSignal } from '../../src/sdk/events'

const pointer = (over: Record<string, unknown> = {}) => ({
  clientX: 100,
  clientY: 50,
  screenX: 300,
  screenY: 180,
  isTrusted: true,
  ...over,
})

describe('SDK events: keys', () => {
  it('maps keys to their class', () => {
    const cases: [string, string][] = [
      ['a', 'char'],
      ['Z', 'char'],
      ['é', 'char'],
      ['ß', 'char'],
      ['😀', 'char'],
      [',', 'char'],
      ['7', 'digit'],
      ['٣', 'digit'],
      [' ', 'space'],
      ['Enter', 'enter'],
      ['Backspace', 'back'],
      ['Delete', 'back'],
      ['Shift', 'mod'],
      ['Control', 'mod'],
      ['Meta', 'mod'],
      ['AltGraph', 'mod'],
      ['CapsLock', 'mod'],
      ['ArrowLeft', 'nav'],
      ['Tab', 'nav'],
      ['PageDown', 'nav'],
      ['Home', 'nav'],
      ['F5', 'other'],
      ['Dead', 'other'],
      ['Process', 'other'],
      ['', 'other'],
    ]
    for (const [key, cls] of cases) expect([key, keyClass(key)]).toEqual([key, cls])
    expect(keyClass(undefined)).toBe('other')
  })

  it('never puts the key value in the signal', () => {
    for (const key of ['s', 'S', '4', 'p', 'Enter']) {
      const signal = keySignal('kd', { key, isTrusted: true })!
      expect(Object.keys(signal).sort()).toEqual(['k', 'kc'])
      expect(Object.values(signal)).not.toContain(key)
    }
  })

  it('leaves out the keydowns the OS repeats while a key is held, not the press or the release', () => {
    expect(keySignal('kd', { key: 'ArrowDown', isTrusted: true, repeat: true })).toBeNull()
    expect(keySignal('kd', { key: 'ArrowDown', isTrusted: true, repeat: false })).toEqual({ k: 'kd', kc: 'nav' })
    expect(keySignal('ku', { key: 'ArrowDown', isTrusted: true, repeat: true })).toEqual({ k: 'ku', kc: 'nav' })
  })
})

describe('SDK events: pointer', () => {
  it('records position, coalesced samples and omits tr and sc for a trusted mouse', () => {
    expect(moveSignal({ ...pointer({ clientX: 10.26, clientY: 20.04 }), getCoalescedEvents: () => [1, 2, 3] })).toEqual({
      k: 'mm',
      x: 10.3,
      y: 20,
      n: 3,
    })
  })

  it('counts a move with an empty coalesced list (WebKit, after a scroll) as one sample, never 0', () => {
    expect(moveSignal({ ...pointer({ clientX: 5, clientY: 6 }), getCoalescedEvents: () => [] })).toEqual({ k: 'mm', x: 5, y: 6, n: 1 })
  })

  it('flags untrusted events and equal screen/client coordinates', () => {
    expect(buttonSignal('md', pointer({ screenX: 100, screenY: 50, isTrusted: false }))).toEqual({
      k: 'md',
      x: 100,
      y: 50,
      sc: 1,
      tr: false,
    })
  })

  it('gives the click offset inside the target, −1…1 from its centre', () => {
    const rect = { left: 50, top: 40, width: 100, height: 20 }
    expect(clickSignal(pointer({ detail: 1 }), rect)).toEqual({ k: 'c', x: 100, y: 50, ox: 0, oy: 0 })
    expect(clickSignal(pointer({ clientX: 150, clientY: 40, detail: 1 }), rect)).toMatchObject({ ox: 1, oy: -1 })
    expect(clickSignal(pointer({ clientX: 62.5, clientY: 55, detail: 1 }), rect)).toMatchObject({ ox: -0.75, oy: 0.5 })
    // A pointer outside the target (label click forwarded to an input) stays within the range.
    expect(clickSignal(pointer({ clientX: 400, clientY: 0, detail: 1 }), rect)).toMatchObject({ ox: 1, oy: -1 })
  })

  it('records a keyboard-activated click without a position', () => {
    expect(clickSignal(pointer({ clientX: 0, clientY: 0, detail: 0 }), { left: 0, top: 0, width: 10, height: 10 })).toEqual({ k: 'c' })
  })
})

describe('SDK events: scroll and touch', () => {
  it('converts wheel deltas to CSS px', () => {
    expect(scrollSignal({ deltaY: 53.2, deltaMode: 0, isTrusted: true }, 800)).toEqual({ k: 's', dy: 53.2 })
    expect(scrollSignal({ deltaY: 3, deltaMode: 1, isTrusted: true }, 800)).toEqual({ k: 's', dy: 48 })
    expect(scrollSignal({ deltaY: -1, deltaMode: 2, isTrusted: false }, 700)).toEqual({ k: 's', dy: -700, tr: false })
  })

  it('records the first changed touch with radius and force', () => {
    const e = { isTrusted: true, changedTouches: [{ clientX: 5, clientY: 6, radiusX: 10, radiusY: 14, force: 0.4567 }] }
    expect(touchSignal('ts', e)).toEqual({ k: 'ts', x: 5, y: 6, r: 12, p: 0.457 })
    expect(touchSignal('te', { isTrusted: true, changedTouches: [] })).toEqual({ k: 'te' })
  })
})

describe('SDK events: a pen is recorded once', () => {
  const ids = (a: { identifier: number }[]) => a.map((t) => t.identifier)

  it('skips the touch events of a pen that is down (Chrome: the pointer event first, no touchType)', () => {
    const pens = new PenTouches()
    pens.penDown(true)
    expect(pens.fingers('ts', [{ identifier: 7 }])).toEqual([])
    expect(pens.fingers('tm', [{ identifier: 7 }])).toEqual([])
    pens.penDown(false)
    // pointerup comes before touchend: the touch is still the pen's
    expect(pens.fingers('te', [{ identifier: 7 }])).toEqual([])
    // the identifier is free again: a later finger with it is recorded
    expect(ids(pens.fingers('ts', [{ identifier: 7 }]))).toEqual([7])
  })

  it("skips a touch that says it is a stylus (Safari's touchType), whatever the order", () => {
    const pens = new PenTouches()
    expect(pens.fingers('ts', [{ identifier: 1, touchType: 'stylus' }])).toEqual([])
    expect(pens.fingers('tm', [{ identifier: 1, touchType: 'stylus' }])).toEqual([])
    expect(pens.fingers('te', [{ identifier: 1, touchType: 'stylus' }])).toEqual([])
  })

  it('records fingers, also beside a pen, and claims one touch per pen down', () => {
    const pens = new PenTouches()
    expect(ids(pens.fingers('ts', [{ identifier: 1, touchType: 'direct' }]))).toEqual([1])
    pens.penDown(true)
    expect(pens.fingers('ts', [{ identifier: 2 }])).toEqual([])
    // a second touch while the same pen is down is a finger
    expect(ids(pens.fingers('ts', [{ identifier: 3 }]))).toEqual([3])
    expect(ids(pens.fingers('tm', [{ identifier: 2 }, { identifier: 1 }, { identifier: 3 }]))).toEqual([1, 3])
    pens.penDown(false)
    expect(ids(pens.fingers('te', [{ identifier: 1 }, { identifier: 2 }]))).toEqual([1])
  })
})
