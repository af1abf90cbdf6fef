-- Issue 13: reused human material across sessions (src/scoring/replay.ts). When a session is scored,
-- the shapes of its distinctive strokes and its key-press latencies are stored, with locality-sensitive
-- keys, and the organization's earlier sessions sharing a key are compared with it.
-- Owned by src/server/modules/ingest/repo.ts (replay-store.ts holds the rule).
--
-- What is stored is derived from the raw signals, so it lives exactly as long as they do: both tables
-- are partitioned like session_batches by the session's start (one UTC day per partition), and their
-- day partitions are created and dropped in the same calls as session_batches' (repo.ts
-- addBatchPartitions, dropBatchPartition).

-- One row per scored session with material: encodeMaterial (stroke shapes around their own centroid,
-- no positions on the page, no times; key-press latencies, no keys). A deleted session takes it along.
create table session_replay (
  org_id             uuid not null,
  session_id         uuid not null,
  session_started_at timestamptz not null,
  material           bytea not null,
  primary key (org_id, session_id, session_started_at),
  foreign key (org_id, session_id) references sessions (org_id, session_id) on delete cascade
) partition by range (session_started_at);

-- The keys, one row each: the lookup is `org_id = $1 and key = any($2)` on the primary key, one index
-- probe per key, whatever the planner thinks of arrays. (A bigint[] column with a GIN index was tried
-- first: PostgreSQL estimated `keys && $2` poorly and tested it row by row over the organization's
-- sessions instead, ≈ 0.15 ms a row, 0.7 s for 5,000 sessions in a day.) The organization is hashed
-- into each key too. Rows of an earlier score of the session stay (harmless: they lead to its current
-- material); they carry nothing but the hash and go with their day partition. No foreign key: a
-- cascade from a deleted session would have to search the keys of its whole organization.
create table session_replay_keys (
  org_id             uuid not null,
  key                bigint not null,
  session_id         uuid not null,
  session_started_at timestamptz not null,
  primary key (org_id, key, session_id, session_started_at)
) partition by range (session_started_at);

grant select, insert, update, delete on session_replay, session_replay_keys to bss_tenant;
alter table session_replay enable row level security;
alter table session_replay_keys enable row level security;
create policy tenant_isolation on session_replay to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on session_replay_keys to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());

-- The partitions of one UTC day, created if missing (races between instances tolerated, as 0013's).
create function session_replay_add_partition(day date) returns void language plpgsql as $$
declare
  t text;
begin
  foreach t in array array['session_replay', 'session_replay_keys'] loop
    if to_regclass(t || '_' || to_char(day, 'YYYYMMDD')) is null then
      begin
        execute format('create table %I partition of %I for values from (%L) to (%L)',
          t || '_' || to_char(day, 'YYYYMMDD'), t, (day::timestamp at time zone 'UTC'), ((day + 1)::timestamp at time zone 'UTC'));
      exception when duplicate_table or unique_violation then
        null;
      end;
    end if;
  end loop;
end $$;

-- Drops the partitions of one day; false when there were none.
create function session_replay_drop_partition(day date) returns boolean language plpgsql as $$
declare
  t text;
  dropped boolean := false;
begin
  foreach t in array array['session_replay_keys', 'session_replay'] loop
    if to_regclass(t || '_' || to_char(day, 'YYYYMMDD')) is not null then
      execute format('drop table %I', t || '_' || to_char(day, 'YYYYMMDD'));
      dropped := true;
    end if;
  end loop;
  return dropped;
end $$;

-- Every day that has batches gets its partitions now; later days come with theirs.
select session_replay_add_partition(d) from session_batches_partition_days() d;
