-- Issue 14, eighth part: ingest_write_group locks an existing session with `select … for no key
-- update` instead of a no-op update. Owned by src/server/modules/ingest/repo.ts.
--
-- 0014 created or locked every session of a group in one `insert … on conflict do update set
-- last_batch_at = sessions.last_batch_at`: for a session that already exists (2 of 3 batches under the
-- side-by-side load) the no-op update only took the row lock, and wrote a whole new version of the
-- session row (its 34 client features, fingerprint, counters; a heap tuple and its WAL record) that
-- step 4 replaced again moments later with the counters moved on. Now step 1 is two statements:
--   1a. `insert … on conflict do nothing` creates the new sessions (in session order) and returns them;
--       a session another transaction is inserting is waited for, as before;
--   1b. `select … for no key update` locks the others, in session order. Its own statement, so its
--       snapshot sees sessions committed meanwhile; the lock mode is the one the no-op update took
--       (no key column changes; foreign-key checks' key-share locks do not conflict with it); and in
--       read committed it returns the latest committed counters, as the update did.
-- A lock writes only the tuple's lock bits and a small WAL record. The retry probe still runs after the
-- locks, in a later statement (it sees every batch committed before them), and everything after step 1
-- is unchanged. Across instances, two groups now take their sessions' locks in two passes (new ones,
-- then existing ones), each in session order; a deadlock between two groups is detected by PostgreSQL,
-- aborts one group, and its batches are written again alone (service.ts, writeGroup), as any failed group.
-- Same answers, same rows and counters; nothing else changes (0014, 0016 and 0018's comments hold).

create or replace function ingest_write_group(
  p_org uuid, p_month date, p_window_ms integer, p_max_signals integer,
  p_session uuid[], p_key_pair uuid[], p_sdk text[], p_at timestamptz[], p_print text[],
  p_hash text[], p_legacy text[], p_captured timestamptz[], p_count integer[], p_packed bytea, p_packed_end integer[],
  p_features float8[]
) returns table (outcome text, accepted integer, session_signals integer, quota_limit integer, quota_used integer)
language plpgsql as $$
declare
  n integer := cardinality(p_session);
  v_width integer := cardinality(p_features) / greatest(n, 1);
  v_limit integer;
  v_used integer;
  v_inserted boolean[];
  v_batches integer[];
  v_signals integer[];
  v_first timestamptz[];
  v_original integer[];
  v_legacy boolean[];
  v_outcome text[] := array_fill('stored'::text, array[n]);
  v_quota integer[] := array_fill(null::integer, array[n]);
  v_undo uuid[] := '{}';
  v_new integer := 0;
  v_claim record;
  v_rank integer := 0;
  v_made uuid[];
  v_made_batches integer[];
  v_made_signals integer[];
  v_made_first timestamptz[];
  v_found integer;
begin
  perform set_config('app.org_id', p_org::text, true), set_config('role', 'bss_tenant', true),
    set_config('plan_cache_mode', 'force_generic_plan', true);
  select p.sessions_limit into v_limit from organizations o join plans p on p.plan_id = o.plan_id where o.org_id = p_org;
  if not found then
    return query select 'no_org'::text, 0, 0, 0, 0 from generate_series(1, n);
    return;
  end if;
  v_used := coalesce((select sessions_used from usage_counters where org_id = p_org and month = p_month), 0);

  -- 1. create the new sessions, then lock the existing ones (see the header: a lock, not a no-op update)
  with opened as (
    insert into sessions (org_id, session_id, key_pair_id, sdk_type, usage_month, first_seen_at, last_batch_at, fingerprint)
    select p_org, u.session_id, u.key_pair_id, u.sdk_type, p_month, u.at, u.at, u.print
    from unnest(p_session, p_key_pair, p_sdk, p_at, p_print) as u(session_id, key_pair_id, sdk_type, at, print)
    order by u.session_id
    on conflict (org_id, session_id) do nothing
    returning session_id, batch_count, signal_count, first_seen_at
  )
  select coalesce(array_agg(o.session_id), '{}'), coalesce(array_agg(o.batch_count), '{}'), coalesce(array_agg(o.signal_count), '{}'),
    coalesce(array_agg(o.first_seen_at), '{}')
  into v_made, v_made_batches, v_made_signals, v_made_first
  from opened o;

  -- A statement of its own, so its snapshot sees a session another transaction committed meanwhile
  -- (the insert above waited for it); for no key update is the lock the no-op update took, and it
  -- returns the latest committed counters.
  -- One primary-key probe per session, in session order (a lateral subquery: `session_id = any(…)`
  -- stayed a filter over the organization's whole key range in the generic plan made on an empty table).
  with held as (
    select h.* from (select u.session_id from unnest(p_session) as u(session_id) where u.session_id <> all(v_made) order by 1) as u
    cross join lateral (
      select s.session_id, s.batch_count, s.signal_count, s.first_seen_at from sessions s
      where s.org_id = p_org and s.session_id = u.session_id
      for no key update
    ) as h
  ), found as (
    select h.session_id, false as inserted, h.batch_count, h.signal_count, h.first_seen_at from held h
    union all
    select m.session_id, true, m.batch_count, m.signal_count, m.first_seen_at
    from unnest(v_made, v_made_batches, v_made_signals, v_made_first) as m(session_id, batch_count, signal_count, first_seen_at)
  )
  select array_agg(f.inserted order by u.i), array_agg(f.batch_count order by u.i), array_agg(f.signal_count order by u.i),
    array_agg(f.first_seen_at order by u.i), count(f.session_id)
  into v_inserted, v_batches, v_signals, v_first, v_found
  from unnest(p_session) with ordinality as u(session_id, i) left join found f on f.session_id = u.session_id;
  if v_found < n then
    -- neither created nor found: the group fails and the service writes each batch again alone
    raise exception 'ingest_write_group: a session was neither created nor found';
  end if;

  -- 2. the retry probe, after the locks: it sees every batch committed before them; one partition each.
  -- Either form of the hash (p_legacy: the old form, given only when asked for); and whether the session
  -- holds a batch hashed the old way when no old form was given (then 'legacy': the service asks again).
  -- One equality per form (not `= any(array[hash, legacy])`): a bound of the batch-hash index in every
  -- plan, so each probe is one descent whatever the session's length (see the header).
  select array_agg(coalesce((
    select b.signal_count from session_batches b
    where b.org_id = p_org and b.session_id = u.session_id and b.batch_hash = u.hash and b.session_started_at = v_first[u.i]
  ), (
    select b.signal_count from session_batches b
    where u.legacy is not null and b.org_id = p_org and b.session_id = u.session_id and b.batch_hash = u.legacy
      and b.session_started_at = v_first[u.i]
  )) order by u.i),
  array_agg(case when v_inserted[u.i] or u.legacy is not null then false else exists(
    select from session_batches b
    where b.org_id = p_org and b.session_id = u.session_id and b.batch_hash < 'g' and b.session_started_at = v_first[u.i]
  ) end order by u.i)
  into v_original, v_legacy
  from unnest(p_session, p_hash, p_legacy) with ordinality as u(session_id, hash, legacy, i);

  -- 3. each batch's checks
  for i in 1 .. n loop
    if v_original[i] is not null then
      v_outcome[i] := 'retry';
    elsif v_legacy[i] then
      v_outcome[i] := 'legacy';
    elsif v_inserted[i] then
      if v_used >= v_limit then
        v_outcome[i] := 'quota';
        v_undo := v_undo || p_session[i];
      else
        v_outcome[i] := 'counted';
        v_new := v_new + 1;
      end if;
    elsif p_at[i] - v_first[i] >= p_window_ms * interval '1 millisecond' then
      v_outcome[i] := 'closed';
    elsif v_signals[i] + p_count[i] > p_max_signals then
      v_outcome[i] := 'full';
    end if;
  end loop;

  -- 4. drop the refused new sessions; store the admitted batches and move their sessions' counters on
  if cardinality(v_undo) > 0 then
    delete from sessions where org_id = p_org and session_id = any(v_undo);
    v_undo := '{}';
  end if;
  with u as (
    select x.session_id, v_batches[x.i] + 1 as seq, v_first[x.i] as started, p_captured[x.i] as captured_at, p_hash[x.i] as hash,
      p_count[x.i] as signal_count, substr(p_packed, coalesce(p_packed_end[x.i - 1], 0) + 1, p_packed_end[x.i] - coalesce(p_packed_end[x.i - 1], 0)) as packed, p_at[x.i] as at, v_signals[x.i] + p_count[x.i] as total,
      p_features[(x.i - 1) * v_width + 1 : x.i * v_width] as features, p_sdk[x.i] as sdk_type
    from unnest(p_session) with ordinality as x(session_id, i)
    where v_outcome[x.i] in ('stored', 'counted')
  ), batch as (
    insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed, received_at)
    select p_org, u.session_id, u.seq, u.started, u.captured_at, u.hash, u.signal_count, u.packed, u.at from u
  )
  insert into sessions as s (org_id, session_id, sdk_type, usage_month, last_batch_at, batch_count, signal_count, client_features)
  select p_org, u.session_id, u.sdk_type, p_month, u.at, u.seq, u.total, u.features from u
  on conflict (org_id, session_id) do update set last_batch_at = excluded.last_batch_at, batch_count = excluded.batch_count,
    signal_count = excluded.signal_count, client_features = excluded.client_features;

  -- 5. count the new sessions; the first `granted` (in session order) are counted, the rest go
  if v_new > 0 then
    select * into v_claim from usage_claim_sessions(p_org, p_month, v_limit, v_new);
    for i in 1 .. n loop
      if v_outcome[i] = 'counted' then
        v_rank := v_rank + 1;
        if v_rank <= v_claim.used_after - v_claim.used_before then
          v_quota[i] := v_claim.used_before + v_rank;
        else
          v_outcome[i] := 'quota';
          v_undo := v_undo || p_session[i];
        end if;
      end if;
    end loop;
    if cardinality(v_undo) > 0 then
      delete from sessions where org_id = p_org and session_id = any(v_undo);
    end if;
  end if;

  return query
  select v_outcome[i], case when v_outcome[i] = 'retry' then v_original[i] else p_count[i] end, v_signals[i], v_limit,
    coalesce(v_quota[i], v_used)
  from generate_series(1, n) as i;
end $$;
