// Preloaded into the service by `bench/ingest.ts` when BENCH_LAG is set (bench/README.md, "the
// open-loop tail"): every 250 ms one line with the event loop's worst lag (a 5 ms timer's lateness),
// the main thread's CPU and the JS heap, so a latency tail can be lined up with stalls and GCs.
import { appendFileSync, writeFileSync } from 'node:fs'

const out = process.env.BENCH_LAG
if (out) {
  writeFileSync(out, '')
  let last = performance.now()
  let worst = 0
  let ticks = 0
  setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 5)
    last = now
    ticks++
  }, 5).unref()
  let cpu = process.cpuUsage()
  setInterval(() => {
    const m = process.memoryUsage()
    const c = process.cpuUsage(cpu)
    cpu = process.cpuUsage()
    appendFileSync(
      out,
      `${JSON.stringify({ t: Date.now(), lagMs: +worst.toFixed(1), ticks, cpuMs: Math.round((c.user + c.system) / 1000), heapMB: +(m.heapUsed / 2 ** 20).toFixed(1), rssMB: Math.round(m.rss / 2 ** 20) })}\n`
    )
    worst = 0
    ticks = 0
  }, 250).unref()
}
