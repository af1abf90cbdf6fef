import type { Sql } from '../../platform/db'

/** The only file that names rate_limit_buckets in SQL. */

/**
 * Refills bucket `key` (`limit` tokens over `windowMs`) up to `now`, then takes a token if there is
 * one, in one statement: the upsert locks the row, so concurrent takes on any instance queue up
 * and never both spend the last token.
 */
export async function takeToken(
  sql: Sql,
  b: { key: string; limit: number; windowMs: number; now: Date }
): Promise<{ allowed: boolean; tokens: number }> {
  const rate = b.limit / b.windowMs
  // Tokens after refilling for the time since the last take (a clock that went back refills nothing).
  const refilled = sql`least(${b.limit}::float8,
    r.tokens + greatest(0, extract(epoch from (excluded.updated_at - r.updated_at)) * 1000) * ${rate}::float8)`
  const [row]: [{ allowed: boolean; tokens: number }?] = await sql`
    insert into rate_limit_buckets as r (bucket_key, tokens, updated_at, window_ms, allowed)
    values (${b.key}, ${b.limit - 1}, ${b.now}, ${b.windowMs}, true)
    on conflict (bucket_key) do update set
      tokens = ${refilled} - case when ${refilled} >= 1 then 1 else 0 end,
      allowed = ${refilled} >= 1,
      updated_at = greatest(r.updated_at, excluded.updated_at),
      window_ms = excluded.window_ms
    returning allowed, tokens`
  return row!
}

/** Deletes buckets idle for longer than their window: they are full again and carry no information. */
export async function deleteFullBuckets(sql: Sql, now: Date): Promise<number> {
  const rows = await sql`
    delete from rate_limit_buckets where updated_at < ${now}::timestamptz - window_ms * interval '1 millisecond'
    returning 1`
  return rows.length
}
