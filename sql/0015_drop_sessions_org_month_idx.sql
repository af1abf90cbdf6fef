-- Issue 14, third part: one index fewer written for every new session. No statement filters sessions
-- on usage_month (the month's count lives in usage_counters, and the dashboard's reads use the
-- first_seen_at indexes of 0008/0009), so sessions_org_month_idx (0001) was only ever written.
-- Owned by src/server/modules/ingest/repo.ts.
drop index if exists sessions_org_month_idx;
