import { createHash, timingSafeEqual } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Uniform base62 string from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2))
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}

// Native SHA-256: it runs on every API request (key lookup); the pure-JS one cost ~3% of ingest CPU.
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Equal strings, compared in time independent of where they differ (lengths may leak, as before). */
export function timingSafeEqualString(a: string, b: string): boolean {
  const ea = Buffer.from(a, 'utf8')
  const eb = Buffer.from(b, 'utf8')
  // node:crypto's timingSafeEqual throws on different lengths rather than answering false.
  return ea.length === eb.length && timingSafeEqual(ea, eb)
}

/** A 6-digit code, uniform over 000000–999999. */
export function randomDigits(length: number): string {
  let out = ''
  while (out.length < length) {
    const [n] = crypto.getRandomValues(new Uint32Array(1))
    // 4_294_000_000 is the largest multiple of 10 below 2^32 that keeps the digits uniform.
    if (n! < 4_294_000_000) out += String(n! % 10)
  }
  return out
}

export const uuid = (): string => crypto.randomUUID()
