-- Issue 14: a batch no longer rescores its session. The stored score is the score of the session's
-- first `scored_batches` batches; it is stale when that differs from batch_count, and is then
-- recomputed where a score is needed (a secret-key ingest, GET /v1/session/:id, the retention job).
-- Owned by src/server/modules/ingest/repo.ts.
alter table sessions add column scored_batches integer;
update sessions set scored_batches = batch_count where scored_at is not null;
