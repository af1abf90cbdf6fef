-- Issue 14: every batch's update of its session row (last_batch_at, batch_count, signal_count,
-- client_features) had stopped being a HOT update since 0008: sessions_stale_idx indexed
-- last_batch_at and its predicate read batch_count, so each batch wrote a new entry into every index
-- of sessions (bench/README.md: 1,035 of 2,095 updates HOT, i.e. none of the counter updates).
-- The background scorer's queue now rests on columns a batch does not change: `stale` is computed by
-- PostgreSQL from scored_batches and batch_count (true from a session's first batch until it is
-- scored, so later batches leave it as it was), and the queue is ordered by first_seen_at.
-- Owned by src/server/modules/ingest/repo.ts.
alter table sessions add column stale boolean generated always as (scored_batches is distinct from batch_count) stored;
drop index sessions_stale_idx;
create index sessions_stale_idx on sessions (first_seen_at) where stale;
-- Room in each page for the next versions of its rows (HOT needs the new version on the same page).
alter table sessions set (fillfactor = 80);
