import * as v from 'valibot'

/** GET /v1/org/usage (API.md); for the OpenAPI document, the handler returns PlanUsage from the service. */
export const PlanUsageSchema = v.object({
  plan_id: v.string(),
  display_name: v.string(),
  sessions_used: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sessions_limit: v.pipe(v.number(), v.integer(), v.minValue(0)),
  percent_used: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('0–100, one decimal')),
  period_start: v.pipe(v.string(), v.isoTimestamp()),
  period_end: v.pipe(v.string(), v.isoTimestamp()),
})
