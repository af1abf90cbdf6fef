import type { Sql, Tx } from '../../platform/db'

/** The only file that names usage_counters in SQL. */

/** Sessions counted for the organization in the month starting on `month` (YYYY-MM-DD). */
export async function sessionsUsed(sql: Sql | Tx, orgId: string, month: string): Promise<number> {
  const [row]: [{ sessions_used: number }?] = await sql`
    select sessions_used from usage_counters where org_id = ${orgId} and month = ${month}`
  return row?.sessions_used ?? 0
}

/**
 * Counts up to `k` more sessions in the month without passing `limit`, for a group of new sessions
 * in one transaction: the counter row is locked (`for update`, so the value read is the latest one and
 * stays so until commit), then raised by as many as fit. Three statements sent at once. Returns the
 * count before and after: after − before sessions were granted, in order. A limit of 0 writes nothing.
 */
export async function incrementUpTo(
  tx: Tx,
  orgId: string,
  month: string,
  limit: number,
  k: number
): Promise<{ before: number; after: number }> {
  const [, locked, raised] = await Promise.all([
    tx`insert into usage_counters (org_id, month, sessions_used) select ${orgId}::uuid, ${month}::date, 0 where ${limit}::int > 0
       on conflict (org_id, month) do nothing`,
    tx<{ sessions_used: number }[]>`select sessions_used from usage_counters where org_id = ${orgId} and month = ${month} for update`,
    // greatest(): a limit lowered below the count never lowers the count.
    tx<{ sessions_used: number }[]>`
      update usage_counters set sessions_used = least(sessions_used + ${k}::int, greatest(sessions_used, ${limit}::int))
      where org_id = ${orgId} and month = ${month} returning sessions_used`,
  ])
  const before = locked[0]?.sessions_used ?? 0
  return { before, after: raised[0]?.sessions_used ?? before }
}
