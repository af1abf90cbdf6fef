import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db'
import * as repo from './repo'

/** How long a key is remembered (API.md: 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** A first request still "running" after this long died with its process; the key is free again. */
export const IDEMPOTENCY_LOCK_MS = 60_000
/** Every this many claims, one also deletes the expired keys. */
const PURGE_EVERY = 500

export type StoredResponse = { status: number; headers: Record<string, string>; body: string }
export type Claim = { keyDigest: string; claimId: string; secret: Buffer }
export type Begin =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' }

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest()

// AES-256-GCM under a key derived from the Idempotency-Key itself, which only the client knows.
function seal(secret: Buffer, plain: string): Uint8Array {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', secret, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

function open(secret: Buffer, sealed: Uint8Array): string {
  const buf = Buffer.from(sealed)
  const decipher = createDecipheriv('aes-256-gcm', secret, buf.subarray(0, 12))
  decipher.setAuthTag(buf.subarray(12, 28))
  return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8')
}

/**
 * Idempotency keys in the database, shared by every instance. `scope` is `org:<id>` or `ip:<addr>`;
 * `fingerprint` identifies the request (method, path, body). The app's clock is used (tests move it).
 */
export function idempotencyStore({ db, now }: { db: Db; now: () => Date }) {
  let claims = 0
  return {
    async begin(scope: string, key: string, fingerprint: string): Promise<Begin> {
      const at = now()
      const keyDigest = digest('key', scope, key).toString('hex')
      const requestDigest = digest('request', fingerprint).toString('hex')
      const secret = digest('seal', scope, key)
      const claimId = randomUUID()
      if (++claims % PURGE_EVERY === 0) await repo.deleteExpired(db.sql, at)
      const got = await repo.claim(db.sql, {
        keyDigest,
        requestDigest,
        claimId,
        now: at,
        lockedUntil: new Date(at.getTime() + IDEMPOTENCY_LOCK_MS),
        expiresAt: new Date(at.getTime() + IDEMPOTENCY_TTL_MS),
      })
      if (got.claimed) return { kind: 'claimed', claim: { keyDigest, claimId, secret } }
      if (got.row.request_digest !== requestDigest) return { kind: 'mismatch' }
      if (!got.row.completed_at || !got.row.response) return { kind: 'in_progress' }
      return { kind: 'replay', response: JSON.parse(open(secret, got.row.response)) as StoredResponse }
    },
    async complete(claim: Claim, response: StoredResponse): Promise<void> {
      await repo.complete(db.sql, {
        keyDigest: claim.keyDigest,
        claimId: claim.claimId,
        now: now(),
        response: seal(claim.secret, JSON.stringify(response)),
      })
    },
    async release(claim: Claim): Promise<void> {
      await repo.release(db.sql, { keyDigest: claim.keyDigest, claimId: claim.claimId })
    },
  }
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>
