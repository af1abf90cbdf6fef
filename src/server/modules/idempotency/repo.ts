import type { Sql } from '../../platform/db'

/** The only file that names idempotency_keys in SQL. */

export type IdempotencyRow = {
  request_digest: string
  completed_at: Date | null
  response: Uint8Array | null
}

/**
 * Claims `keyDigest` for a request, atomically: a new key, an expired one, or one whose first request
 * died while running (its lock ran out) becomes this request's (`claimed`). Otherwise the existing
 * row is returned for the caller to replay or refuse. The upsert locks the row, so of two requests
 * arriving together exactly one claims it.
 */
export async function claim(
  sql: Sql,
  c: { keyDigest: string; requestDigest: string; claimId: string; now: Date; lockedUntil: Date; expiresAt: Date }
): Promise<{ claimed: true } | { claimed: false; row: IdempotencyRow }> {
  const taken = await sql`
    insert into idempotency_keys as k (key_digest, request_digest, claim_id, locked_until, expires_at)
    values (${c.keyDigest}, ${c.requestDigest}, ${c.claimId}, ${c.lockedUntil}, ${c.expiresAt})
    on conflict (key_digest) do update set
      request_digest = excluded.request_digest, claim_id = excluded.claim_id, completed_at = null, response = null,
      locked_until = excluded.locked_until, expires_at = excluded.expires_at
    where k.expires_at <= ${c.now} or (k.completed_at is null and k.locked_until <= ${c.now})
    returning 1`
  if (taken.length > 0) return { claimed: true }
  const [row]: [IdempotencyRow?] = await sql`
    select request_digest, completed_at, response from idempotency_keys where key_digest = ${c.keyDigest}`
  // Deleted between the two statements (released by a failed first request): claim again.
  if (!row) return claim(sql, c)
  return { claimed: false, row }
}

/** Stores the first request's answer; only the request that holds the claim can. */
export async function complete(sql: Sql, c: { keyDigest: string; claimId: string; now: Date; response: Uint8Array }) {
  await sql`
    update idempotency_keys set completed_at = ${c.now}, response = ${c.response}
    where key_digest = ${c.keyDigest} and claim_id = ${c.claimId} and completed_at is null`
}

/** Forgets a claim whose request did not succeed, so a retry with the same key runs it again. */
export async function release(sql: Sql, c: { keyDigest: string; claimId: string }) {
  await sql`
    delete from idempotency_keys
    where key_digest = ${c.keyDigest} and claim_id = ${c.claimId} and completed_at is null`
}

export async function deleteExpired(sql: Sql, now: Date): Promise<number> {
  const rows = await sql`delete from idempotency_keys where expires_at <= ${now} returning 1`
  return rows.length
}
