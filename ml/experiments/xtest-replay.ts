// Plays recorded pointer events through the X server's XTest extension, as a mouse's reports reach
// every window on the display: a browser on that display gets them as it gets a hand's (trusted
// events, its own coalescing, timestamps and frame timing). Run as its own process, because it waits
// by spinning for the last millisecond before each event, which would stall the caller's event loop.
//   DISPLAY=:99 bun run ml/experiments/xtest-replay.ts < events.json
// stdin: { "events": [[t_ms, kind, x, y], …] } with kind "mm" (move to x, y), "md" or "mu" (left button);
// x, y in screen px. stdout: how late the events went out (ms; p50, p99, max).
import { dlopen, FFIType } from 'bun:ffi'

type Event = [number, 'mm' | 'md' | 'mu', number, number]

const x11 = dlopen('libX11.so.6', {
  XOpenDisplay: { args: [FFIType.ptr], returns: FFIType.ptr },
  XFlush: { args: [FFIType.ptr], returns: FFIType.i32 },
  XCloseDisplay: { args: [FFIType.ptr], returns: FFIType.i32 },
})
const xtst = dlopen('libXtst.so.6', {
  XTestFakeMotionEvent: { args: [FFIType.ptr, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.u64], returns: FFIType.i32 },
  XTestFakeButtonEvent: { args: [FFIType.ptr, FFIType.u32, FFIType.i32, FFIType.u64], returns: FFIType.i32 },
})

const display = x11.symbols.XOpenDisplay(null)
if (!display) throw new Error(`cannot open X display ${process.env.DISPLAY}`)
const { events } = JSON.parse(await Bun.stdin.text()) as { events: Event[] }

const nowMs = () => Number(Bun.nanoseconds()) / 1e6
// a moment to settle, then every event at its recorded offset from the start
const start = nowMs() + 50
const late: number[] = []
for (const [t, kind, x, y] of events) {
  const due = start + t
  for (let left = due - nowMs(); left > 0; left = due - nowMs()) if (left > 2) Bun.sleepSync(left - 1.5)
  late.push(nowMs() - due)
  if (kind === 'mm') xtst.symbols.XTestFakeMotionEvent(display, -1, Math.round(x), Math.round(y), 0)
  else xtst.symbols.XTestFakeButtonEvent(display, 1, kind === 'md' ? 1 : 0, 0)
  x11.symbols.XFlush(display)
}
x11.symbols.XCloseDisplay(display)
late.sort((a, b) => a - b)
const q = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))] ?? 0
console.log(JSON.stringify({ events: late.length, lateP50: q(0.5), lateP99: q(0.99), lateMax: late[late.length - 1] ?? 0 }))
