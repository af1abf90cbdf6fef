import { monthStartUtc, nextMonthStartUtc, secondsUntil } from '../../platform/clock'
import type { Db, Sql, Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { findOrgPlan } from '../org'
import * as repo from './repo'

export type PlanUsage = {
  plan_id: string
  display_name: string
  sessions_used: number
  sessions_limit: number
  percent_used: number
  period_start: string
  period_end: string
}

const monthKey = (now: Date) => monthStartUtc(now).toISOString().slice(0, 10)

/** The one source of plan usage, for GET /v1/org/usage and GraphQL getPlanUsage alike. */
export async function getPlanUsage(sql: Sql | Tx, orgId: string, now: Date): Promise<PlanUsage | null> {
  const start = monthStartUtc(now)
  const end = nextMonthStartUtc(now)
  const [plan, used] = await Promise.all([findOrgPlan(sql, orgId), repo.sessionsUsed(sql, orgId, monthKey(now))])
  if (!plan) return null
  const percent = plan.sessions_limit > 0 ? Math.min(100, (used / plan.sessions_limit) * 100) : 100
  return {
    plan_id: plan.plan_id,
    display_name: plan.display_name,
    sessions_used: used,
    sessions_limit: plan.sessions_limit,
    percent_used: Math.round(percent * 10) / 10,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
  }
}

/** getPlanUsage in the organization's own row-level-security scope. */
export function readPlanUsage(db: Db, orgId: string, now: Date): Promise<PlanUsage | null> {
  return db.tenant(orgId, (tx) => getPlanUsage(tx, orgId, now))
}

/** The organization's monthly allowance, for the X-Quota-* headers. */
export type Quota = { limit: number; used: number; resetSeconds: number }

export function quotaHeaders(q: Quota): Record<string, string> {
  return {
    'x-quota-limit': String(q.limit),
    'x-quota-remaining': String(Math.max(0, q.limit - q.used)),
    'x-quota-reset': String(q.resetSeconds),
  }
}

/** 429 plan_limit_exceeded with the quota headers and Retry-After until the month resets. */
export function quotaExceeded(quota: Quota): ApiError {
  return new ApiError(
    'plan_limit_exceeded',
    `the organization's plan allows ${quota.limit} sessions per month; it resets at the start of next month (UTC)`,
    undefined,
    { ...quotaHeaders({ ...quota, used: Math.max(quota.used, quota.limit) }), 'retry-after': String(quota.resetSeconds) }
  )
}

/**
 * The month's quota for the X-Quota-* headers, from a limit and a count read by the caller (ingest
 * reads both in the statement that writes its batches, sql/0014). The count itself is raised only by
 * `usage_claim_sessions` (sql/0014): the month's counter row locked and raised by as many new sessions
 * as fit, in the same transaction as the sessions it counts, so the limit holds across instances.
 */
export function monthQuota(limit: number, used: number, now: Date): Quota {
  return { limit, used, resetSeconds: secondsUntil(nextMonthStartUtc(now), now) }
}
