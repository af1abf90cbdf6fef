// Applies the fix of porsager/postgres#1209 to postgres@3.4.x until it is released:
// nextWrite() may run after closed() has nulled the socket (a write queued with setImmediate, or a
// query on a connection whose server just went away). Unpatched it throws from a timer, which no
// caller can catch and which ends the process — exactly during a database outage. Patched, the
// pending queries are rejected with CONNECTION_CLOSED (→ 503) and the process lives on.
// Idempotent; run by `npm install` (postinstall) and by the Dockerfile.
const fs = require('node:fs')
const path = require('node:path')

const MARK = '/* bss: guarded nextWrite (postgres#1209) */'
const ORIGINAL = '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)'
const PATCHED = `  function nextWrite(fn) {
    ${MARK}
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`

const root = path.join(__dirname, '..', 'node_modules', 'postgres')
if (!fs.existsSync(root)) process.exit(0) // not installed (yet): nothing to patch
for (const rel of ['src/connection.js', 'cjs/src/connection.js']) {
  const file = path.join(root, rel)
  if (!fs.existsSync(file)) continue
  const text = fs.readFileSync(file, 'utf8')
  if (text.includes(MARK)) continue
  if (!text.includes(ORIGINAL)) {
    console.warn(`patch-postgres: ${rel} does not look like postgres@3.4.x; not patched (check porsager/postgres#1209)`)
    continue
  }
  fs.writeFileSync(file, text.replace(ORIGINAL, PATCHED))
  console.log(`patch-postgres: patched ${rel}`)
}
