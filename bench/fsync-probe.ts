// Times fdatasync of an 8 KB append on the database's filesystem, every 20 ms, and writes every
// 250 ms the worst and mean latency (one line of JSON): the disk's share of a commit, independent
// of PostgreSQL. `bun run bench/fsync-probe.ts OUT.jsonl [file]`; stops on SIGTERM.
import { appendFileSync, closeSync, fdatasyncSync, openSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'

const out = process.argv[2] ?? '/tmp/fsync-probe.jsonl'
const file = process.argv[3] ?? '/var/tmp/bss-fsync-probe'
writeFileSync(out, '')
const fd = openSync(file, 'w')
const block = Buffer.alloc(8192, 1)
let stop = false
process.on('SIGTERM', () => (stop = true))
process.on('SIGINT', () => (stop = true))
let times: number[] = []
let bin = Date.now()
let written = 0
while (!stop) {
  // Rewrites the same 1 MB over and over, as WAL does within a segment.
  writeSync(fd, block, 0, block.length, written)
  written = (written + block.length) % (1 << 20)
  const t0 = performance.now()
  fdatasyncSync(fd)
  times.push(performance.now() - t0)
  if (Date.now() - bin >= 250) {
    bin = Date.now()
    appendFileSync(
      out,
      `${JSON.stringify({ t: bin, n: times.length, maxMs: +Math.max(...times).toFixed(2), meanMs: +(times.reduce((a, b) => a + b, 0) / times.length).toFixed(2) })}\n`
    )
    times = []
  }
  await Bun.sleep(20)
}
closeSync(fd)
unlinkSync(file)
