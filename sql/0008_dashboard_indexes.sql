-- Issue 17: the dashboard's session list, verdict statistics and the background scorer.
-- Owned by src/server/modules/ingest/repo.ts. Each tenant index starts with org_id.

-- listSessions, newest first (first_seen_at, then session_id), keyset-paginated; verdictStats reads
-- verdict and hcs from the index alone (an index-only scan over the window).
create index sessions_org_first_seen_idx on sessions (org_id, first_seen_at desc, session_id desc) include (verdict, hcs);
-- listSessions filtered by verdict.
create index sessions_org_verdict_first_seen_idx on sessions (org_id, verdict, first_seen_at desc, session_id desc);
-- The background scorer's queue: only sessions whose stored score is stale or missing, oldest batch first.
create index sessions_stale_idx on sessions (last_batch_at) where scored_batches is distinct from batch_count;
