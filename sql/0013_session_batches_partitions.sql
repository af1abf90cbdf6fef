-- Issue 14: retention drops whole time partitions of session_batches instead of updating rows.
-- Owned by src/server/modules/ingest/repo.ts.
--
-- The partition key is the session's start (session_started_at = sessions.first_seen_at, one UTC day
-- per partition), not the batch's arrival: every batch of a session lands in the session's one
-- partition, so the primary key and the retry key, which must include the partition key, stay as
-- strong as before — (org_id, session_id, seq) and (org_id, session_id, batch_hash) with a column
-- that is constant per session. Keyed by received_at instead, a retry arriving after midnight would
-- pass a per-partition unique check. A session takes batches for 30 minutes, so a day's partition
-- stops growing 30 minutes after the day ends.

alter table session_batches rename to session_batches_unpartitioned;
alter index session_batches_pkey rename to session_batches_unpartitioned_pkey;
alter index session_batches_org_id_session_id_batch_hash_key rename to session_batches_unpartitioned_hash_key;
drop index session_batches_retention_idx;

create table session_batches (
  org_id             uuid not null,
  session_id         uuid not null,
  seq                integer not null,
  -- the session's first_seen_at: the partition key
  session_started_at timestamptz not null,
  captured_at        timestamptz not null,
  batch_hash         text not null,
  signal_count       integer not null,
  -- JSONB of batches stored before 0012; later ones are packed
  signals            jsonb,
  packed             bytea,
  received_at        timestamptz not null default now(),
  primary key (org_id, session_id, seq, session_started_at),
  unique (org_id, session_id, batch_hash, session_started_at),
  foreign key (org_id, session_id) references sessions (org_id, session_id) on delete cascade
) partition by range (session_started_at);

grant select, insert, update, delete on session_batches to bss_tenant;
alter table session_batches enable row level security;
create policy tenant_isolation on session_batches to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());

-- The partition of one UTC day, created if missing (DDL takes no bind parameters, hence a function).
-- Partitions are reached through session_batches only: bss_tenant has no grant on them.
-- Two instances creating the same day at once: the loser's error (the name taken, or the catalog's
-- unique index) means "the other one made it".
create function session_batches_add_partition(day date) returns void language plpgsql as $$
declare
  name text := 'session_batches_' || to_char(day, 'YYYYMMDD');
begin
  if to_regclass(name) is not null then
    return;
  end if;
  execute format('create table %I partition of session_batches for values from (%L) to (%L)',
    name, (day::timestamp at time zone 'UTC'), ((day + 1)::timestamp at time zone 'UTC'));
exception when duplicate_table or unique_violation then
  null;
end $$;

-- The days of the existing partitions (from their names), oldest first.
create function session_batches_partition_days() returns setof date language sql stable as $$
  select to_date(substring(c.relname from 'session_batches_(\d{8})$'), 'YYYYMMDD')
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
  where i.inhparent = 'session_batches'::regclass and c.relname ~ '^session_batches_\d{8}$'
  order by 1
$$;

-- Drops the partition of one day; false when there was none.
create function session_batches_drop_partition(day date) returns boolean language plpgsql as $$
declare
  name text := 'session_batches_' || to_char(day, 'YYYYMMDD');
begin
  if to_regclass(name) is null then
    return false;
  end if;
  execute format('drop table %I', name);
  return true;
end $$;

-- Existing batches move over, each into its session's day (today's and tomorrow's partitions exist from the start).
select session_batches_add_partition(d::date)
from (
  select distinct (s.first_seen_at at time zone 'UTC')::date as d
  from session_batches_unpartitioned b join sessions s on s.org_id = b.org_id and s.session_id = b.session_id
  union select (now() at time zone 'UTC')::date union select (now() at time zone 'UTC')::date + 1
) days;

insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, signals, packed, received_at)
select b.org_id, b.session_id, b.seq, s.first_seen_at, b.captured_at, b.batch_hash, b.signal_count, b.signals, b.packed, b.received_at
from session_batches_unpartitioned b join sessions s on s.org_id = b.org_id and s.session_id = b.session_id;

drop table session_batches_unpartitioned;
