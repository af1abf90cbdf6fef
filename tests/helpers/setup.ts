import { setDefaultTimeout } from 'bun:test'

// PGlite start-up and argon2 are slow on a busy 2-core machine; no test asserts on time.
setDefaultTimeout(60_000)
