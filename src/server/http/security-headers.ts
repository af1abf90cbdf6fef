import { Elysia } from 'elysia'

/** Baseline for every response; HTML pages add their own Content-Security-Policy (web module). */
export function securityHeaders() {
  return new Elysia({ name: 'http-security-headers' }).onRequest(({ set }) => {
    set.headers['x-content-type-options'] = 'nosniff'
    set.headers['x-frame-options'] = 'DENY'
    set.headers['referrer-policy'] = 'no-referrer'
  })
}
