// Patches postgres.js 3.4.x until upstream releases fixes for two defects that both strike when a
// connection closes under load (a database restart, failover or cut). Idempotent; run by
// `npm install` (postinstall) and by the Dockerfile.
//
// 1. porsager/postgres#1209: nextWrite() may run after closed() has nulled the socket (a write
//    queued with setImmediate, or a query on a connection whose server just went away). Unpatched
//    it throws from a timer, which no caller can catch and which ends the process. Patched, the
//    pending queries are rejected with CONNECTION_CLOSED (→ 503) and the process lives on.
// 2. Stale write timer (issue 15, item 6; the defect of LanternOps/breeze#3225, not yet filed as an
//    upstream pull request): closed() and terminate() cancel the deferred flush with clearImmediate
//    but leave `nextWriteTimer` non-null and the bytes in `chunk`. write() schedules a flush only
//    while the timer is null, so a connection whose socket closed with a small write pending never
//    flushes again: each reconnect's StartupMessage stays buffered, the handshake waits the full
//    connect_timeout, and the cycle repeats (requests hang DB_TIMEOUT_MS and answer 503 long after
//    the database is back). Patched, teardown resets both, so stale bytes of a dead backend never
//    reach a new one either. tests/faults/driver-write-timer.test.ts pins it.
const fs = require('node:fs')
const path = require('node:path')

const PATCHES = [
  {
    mark: '/* bss: guarded nextWrite (postgres#1209) */',
    original: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    patched: `  function nextWrite(fn) {
    /* bss: guarded nextWrite (postgres#1209) */
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`,
  },
  {
    mark: '/* bss: write timer reset on teardown */',
    // Both teardown paths (terminate, closed) have this exact line at this indentation.
    original: /\n {4}clearImmediate\(nextWriteTimer\)\n/g,
    count: 2,
    patched: '\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null /* bss: write timer reset on teardown */\n',
  },
]

const root = path.join(__dirname, '..', 'node_modules', 'postgres')
if (!fs.existsSync(root)) process.exit(0) // not installed (yet): nothing to patch
for (const rel of ['src/connection.js', 'cjs/src/connection.js']) {
  const file = path.join(root, rel)
  if (!fs.existsSync(file)) continue
  let text = fs.readFileSync(file, 'utf8')
  let changed = false
  for (const p of PATCHES) {
    if (text.includes(p.mark)) continue
    const found = typeof p.original === 'string' ? (text.includes(p.original) ? 1 : 0) : (text.match(p.original) ?? []).length
    if (found !== (p.count ?? 1)) {
      console.warn(`patch-postgres: ${rel} does not look like postgres@3.4.x; "${p.mark}" not applied`)
      continue
    }
    text = typeof p.original === 'string' ? text.replace(p.original, p.patched) : text.replace(p.original, p.patched)
    changed = true
  }
  if (changed) {
    fs.writeFileSync(file, text)
    console.log(`patch-postgres: patched ${rel}`)
  }
}
