import type { Sql, Tx } from '../../platform/db'

/**
 * The only file that names usage_counters in SQL. The claim of new sessions is the SQL function
 * usage_claim_sessions (sql/0014), called inside ingest's group write so that it shares its transaction.
 */

/** Sessions counted for the organization in the month starting on `month` (YYYY-MM-DD). */
export async function sessionsUsed(sql: Sql | Tx, orgId: string, month: string): Promise<number> {
  const [row]: [{ sessions_used: number }?] = await sql`
    select sessions_used from usage_counters where org_id = ${orgId} and month = ${month}`
  return row?.sessions_used ?? 0
}
