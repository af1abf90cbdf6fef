-- Issue 17: verdictStats for an organization with 100,000 sessions in < 100 ms. Aggregating the
-- sessions themselves costs ~100 ms per 100,000 rows on the 2-core VM (bench/README.md), so scored
-- sessions are counted as they are scored: per organization, UTC day of first_seen_at, verdict and
-- hcs decile. Unscored sessions are few (the background scorer scores them within a minute) and are
-- counted live from sessions through the partial index below.
-- Owned by src/server/modules/ingest/repo.ts; kept by the trigger, never written by the application.
create table session_verdict_days (
  org_id   uuid not null references organizations (org_id) on delete cascade,
  day      date not null,
  verdict  text not null,
  bucket   smallint not null,
  sessions integer not null,
  primary key (org_id, day, verdict, bucket)
);

create function session_verdict_days_bump(o uuid, d date, v text, b smallint, delta integer) returns void
language sql as $$
  insert into session_verdict_days (org_id, day, verdict, bucket, sessions) values (o, d, v, b, delta)
  on conflict (org_id, day, verdict, bucket) do update set sessions = session_verdict_days.sessions + excluded.sessions
$$;

create function session_verdict_days_count() returns trigger language plpgsql as $$
declare
  day date;
  old_b smallint;
  new_b smallint;
  had boolean := tg_op <> 'INSERT' and old.verdict is not null;
  has boolean := tg_op <> 'DELETE' and new.verdict is not null;
begin
  if had then
    day := (old.first_seen_at at time zone 'UTC')::date;
    old_b := least(floor(coalesce(old.hcs, 0) / 10), 9);
  end if;
  if has then
    day := (new.first_seen_at at time zone 'UTC')::date;
    new_b := least(floor(coalesce(new.hcs, 0) / 10), 9);
  end if;
  if had and has and old.verdict = new.verdict and old_b = new_b then
    return null;
  end if;
  -- Two rescorings moving sessions of one day in opposite directions lock the two counter rows in
  -- the same order (smaller key first), so they cannot deadlock.
  if had and (not has or (old.verdict, old_b) < (new.verdict, new_b)) then
    perform session_verdict_days_bump(old.org_id, day, old.verdict, old_b, -1);
    if has then perform session_verdict_days_bump(new.org_id, day, new.verdict, new_b, 1); end if;
  else
    if has then perform session_verdict_days_bump(new.org_id, day, new.verdict, new_b, 1); end if;
    if had then perform session_verdict_days_bump(old.org_id, day, old.verdict, old_b, -1); end if;
  end if;
  return null;
end $$;

-- Only scoring changes verdict or hcs: a batch's update of its session fires nothing.
create trigger sessions_verdict_days_insert after insert on sessions
  for each row when (new.verdict is not null) execute function session_verdict_days_count();
create trigger sessions_verdict_days_update after update of verdict, hcs on sessions
  for each row when (old.verdict is distinct from new.verdict or old.hcs is distinct from new.hcs)
  execute function session_verdict_days_count();
create trigger sessions_verdict_days_delete after delete on sessions
  for each row when (old.verdict is not null) execute function session_verdict_days_count();

insert into session_verdict_days (org_id, day, verdict, bucket, sessions)
  select org_id, (first_seen_at at time zone 'UTC')::date, verdict, least(floor(coalesce(hcs, 0) / 10), 9), count(*)
  from sessions where verdict is not null group by 1, 2, 3, 4;

-- Unscored sessions by day, for verdictStats.
create index sessions_org_unscored_idx on sessions (org_id, first_seen_at) where verdict is null;

grant select, insert, update, delete on session_verdict_days to bss_tenant;
grant execute on function session_verdict_days_bump(uuid, date, text, smallint, integer) to bss_tenant;
alter table session_verdict_days enable row level security;
create policy tenant_isolation on session_verdict_days to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
