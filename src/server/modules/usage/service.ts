import type { Sql, Tx } from '../../platform/db'
import { monthStartUtc, nextMonthStartUtc } from '../../platform/clock'

export type PlanUsage = {
  plan_id: string
  display_name: string
  sessions_used: number
  sessions_limit: number
  percent_used: number
  period_start: string
  period_end: string
}

/** The one source of plan usage, for GET /v1/org/usage and GraphQL getPlanUsage alike. */
export async function getPlanUsage(sql: Sql | Tx, orgId: string, now: Date): Promise<PlanUsage | null> {
  const start = monthStartUtc(now)
  const end = nextMonthStartUtc(now)
  const [row]: [{ plan_id: string; display_name: string; sessions_limit: number; sessions_used: number }?] = await sql`
    select p.plan_id, p.display_name, p.sessions_limit, coalesce(u.sessions_used, 0)::int as sessions_used
    from organizations o
    join plans p on p.plan_id = o.plan_id
    left join usage_counters u on u.org_id = o.org_id and u.month = ${start.toISOString().slice(0, 10)}
    where o.org_id = ${orgId}`
  if (!row) return null
  const percent = row.sessions_limit > 0 ? Math.min(100, (row.sessions_used / row.sessions_limit) * 100) : 100
  return {
    plan_id: row.plan_id,
    display_name: row.display_name,
    sessions_used: row.sessions_used,
    sessions_limit: row.sessions_limit,
    percent_used: Math.round(percent * 10) / 10,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
  }
}
