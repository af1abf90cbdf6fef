-- Issue 13: reused human material across sessions (src/scoring/replay.ts). When a session is scored,
-- the shapes of its distinctive strokes and its key-press latencies are stored here under
-- locality-sensitive keys, and the organization's earlier sessions sharing a key are compared with it.
-- Owned by src/server/modules/ingest/replay-store.ts.
--
-- What is stored is derived from the raw signals, so it lives exactly as long as they do: partitioned
-- like session_batches by the session's start (one UTC day per partition), created and dropped in the
-- same calls as session_batches' partitions (repo.ts addBatchPartitions, dropBatchPartition); a
-- deleted session takes its row along (foreign key).

create table session_replay (
  org_id             uuid not null,
  session_id         uuid not null,
  -- the session's first_seen_at: the partition key, and the "earlier session" of the lookup
  session_started_at timestamptz not null,
  -- locality-sensitive keys of the material (the organization is hashed into each)
  keys               bigint[] not null,
  -- the material itself, encodeMaterial: stroke shapes around their centroid (no positions), latencies in ms
  material           bytea not null,
  primary key (org_id, session_id, session_started_at),
  foreign key (org_id, session_id) references sessions (org_id, session_id) on delete cascade
) partition by range (session_started_at);

-- Lookup: keys && the session's keys (a bitmap scan of each partition's GIN index).
create index session_replay_keys_idx on session_replay using gin (keys);

grant select, insert, update, delete on session_replay to bss_tenant;
alter table session_replay enable row level security;
create policy tenant_isolation on session_replay to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());

-- The partition of one UTC day, created if missing (races between instances tolerated, as 0013's).
create function session_replay_add_partition(day date) returns void language plpgsql as $$
declare
  name text := 'session_replay_' || to_char(day, 'YYYYMMDD');
begin
  if to_regclass(name) is not null then
    return;
  end if;
  execute format('create table %I partition of session_replay for values from (%L) to (%L)',
    name, (day::timestamp at time zone 'UTC'), ((day + 1)::timestamp at time zone 'UTC'));
exception when duplicate_table or unique_violation then
  null;
end $$;

-- Drops the partition of one day; false when there was none.
create function session_replay_drop_partition(day date) returns boolean language plpgsql as $$
declare
  name text := 'session_replay_' || to_char(day, 'YYYYMMDD');
begin
  if to_regclass(name) is null then
    return false;
  end if;
  execute format('drop table %I', name);
  return true;
end $$;

-- Every day that has batches gets its partition now; later days come with theirs.
select session_replay_add_partition(d) from session_batches_partition_days() d;
