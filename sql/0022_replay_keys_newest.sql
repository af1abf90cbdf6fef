-- Issue 13/14: a key's lookup reads at most its KEY_FANOUT_LIMIT most recent sharers (src/scoring/replay.ts).
-- Owned by src/server/modules/ingest/repo.ts (replayKeyMatches).
--
-- 0020's lookup counted every row of every key the session has. A farm that sends the same material
-- again and again gives each of its keys one row per session it sent, so every new session's lookup read
-- all of them: under bench/soak.ts (whose batches all draw one stroke) the lookup grew to 16,000 rows
-- and took most of PostgreSQL's CPU by minute 6. Now each key gives its most recent sharers only,
-- one index range read backwards from the session's start: the primary key's columns are reordered so
-- that start follows the key (the same columns, so the same rows are unique).
alter table session_replay_keys drop constraint session_replay_keys_pkey;
alter table session_replay_keys add primary key (org_id, key, session_started_at, session_id);
