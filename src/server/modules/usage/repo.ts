import type { Sql, Tx } from '../../platform/db'

/** The only file that names usage_counters in SQL. */

/** Sessions counted for the organization in the month starting on `month` (YYYY-MM-DD). */
export async function sessionsUsed(sql: Sql | Tx, orgId: string, month: string): Promise<number> {
  const [row]: [{ sessions_used: number }?] = await sql`
    select sessions_used from usage_counters where org_id = ${orgId} and month = ${month}`
  return row?.sessions_used ?? 0
}

/**
 * Counts one more session in the month unless that would pass `limit`: one guarded upsert, so
 * concurrent claims on any number of instances never overshoot. null = the limit is reached.
 */
export async function incrementUnder(tx: Tx, orgId: string, month: string, limit: number): Promise<number | null> {
  const [row]: [{ sessions_used: number }?] = await tx`
    insert into usage_counters as u (org_id, month, sessions_used)
    select ${orgId}::uuid, ${month}::date, 1 where ${limit}::int > 0
    on conflict (org_id, month) do update set sessions_used = u.sessions_used + 1
    where u.sessions_used < ${limit}::int
    returning sessions_used`
  return row?.sessions_used ?? null
}
