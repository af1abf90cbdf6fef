-- Issue 14, third part: a group of batches is written by one statement, in one round trip.
-- Owned by src/server/modules/ingest/repo.ts (ingest_write_group) and src/server/modules/usage/repo.ts
-- (usage_claim_sessions).
--
-- Measured under the side-by-side load (bench/README.md, "Where the time goes"): a group took 5–6
-- round trips (begin, the tenant settings, open and probe, store and claim, commit); between them the
-- transaction sat idle waiting for the service (on average 4 backends in ClientRead, with their row
-- locks held), and the month's counter row, locked by the claim, stayed locked for a whole round trip
-- through a busy event loop before the commit (0.9 backends waiting on it at any time). Socket writes
-- to PostgreSQL were 21 % of the service's CPU. Called as a single statement outside any explicit
-- transaction, this function runs in the statement's own transaction, which commits (one WAL flush)
-- before the answer reaches the client: a batch is still acknowledged only once durable.

-- Counts up to k new sessions of the calling transaction toward the month, without passing lim:
-- the counter row is locked (the value read is the latest committed one and stays so until commit),
-- then raised by as many as fit. Returns the count before and after (after − before were granted, in
-- order). A limit of 0 writes nothing, so grants nothing. greatest(): a limit lowered below the count
-- never lowers the count.
create function usage_claim_sessions(p_org uuid, p_month date, p_limit integer, p_k integer, out used_before integer, out used_after integer)
language plpgsql as $$
begin
  if p_limit <= 0 then
    select coalesce((select sessions_used from usage_counters where org_id = p_org and month = p_month), 0) into used_before;
    used_after := used_before;
    return;
  end if;
  select sessions_used into used_before from usage_counters where org_id = p_org and month = p_month for update;
  if not found then
    insert into usage_counters (org_id, month, sessions_used) values (p_org, p_month, 0) on conflict (org_id, month) do nothing;
    select sessions_used into used_before from usage_counters where org_id = p_org and month = p_month for update;
  end if;
  update usage_counters set sessions_used = least(sessions_used + p_k, greatest(sessions_used, p_limit))
  where org_id = p_org and month = p_month returning sessions_used into used_after;
end $$;

-- The write of a group of batches: distinct sessions of one organization, one UTC month, given in
-- session order. Each batch is judged exactly as a lone batch (docs/ingest.md, "Plan limits", "Group
-- commit"):
--   1. the plan's limit and the month's count; every session created, or its row locked (in session
--      order, so two instances' groups cannot deadlock); a new one starts with its batch's fingerprint;
--   2. the retry probe (a batch whose hash its session already has is not stored again);
--   3. each batch's checks: retry, quota fast refusal (a new session when the month is used up),
--      the session's window (p_window_ms after its first batch) and signal bound (p_max_signals);
--   4. new sessions refused so far are deleted; every admitted batch is stored and its session's
--      counters move on (the stored score becomes stale);
--   5. the new sessions are counted (usage_claim_sessions, last: the counter row stays locked only
--      until the commit that follows at once); those past the limit are deleted with their batch.
-- Runs under the tenant's role and app.org_id (row-level security as in db.tenant), set locally to
-- the calling transaction. Reads no earlier signal and scores nothing: its cost does not depend on
-- the sessions' length. Returns one row per batch, in input order: outcome 'stored' (an existing
-- session), 'counted' (a new one, quota_used is the month's count after it), 'retry' (accepted = the
-- original batch's count), 'closed', 'full' (session_signals = the session's count), 'quota', or
-- 'no_org' for every batch when the organization does not exist.
create function ingest_write_group(
  p_org uuid, p_month date, p_window_ms integer, p_max_signals integer,
  p_session uuid[], p_key_pair uuid[], p_sdk text[], p_at timestamptz[], p_print text[],
  p_hash text[], p_captured timestamptz[], p_count integer[], p_packed text[], p_features float8[]
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
  v_outcome text[] := array_fill('stored'::text, array[n]);
  v_quota integer[] := array_fill(null::integer, array[n]);
  v_undo uuid[] := '{}';
  v_new integer := 0;
  v_claim record;
  v_rank integer := 0;
begin
  perform set_config('app.org_id', p_org::text, true), set_config('role', 'bss_tenant', true),
    set_config('plan_cache_mode', 'force_generic_plan', true);
  select p.sessions_limit into v_limit from organizations o join plans p on p.plan_id = o.plan_id where o.org_id = p_org;
  if not found then
    return query select 'no_org'::text, 0, 0, 0, 0 from generate_series(1, n);
    return;
  end if;
  v_used := coalesce((select sessions_used from usage_counters where org_id = p_org and month = p_month), 0);

  -- 1. create or lock (the no-op update takes the row lock of an existing session)
  with opened as (
    insert into sessions (org_id, session_id, key_pair_id, sdk_type, usage_month, first_seen_at, last_batch_at, fingerprint)
    select p_org, u.session_id, u.key_pair_id, u.sdk_type, p_month, u.at, u.at, u.print
    from unnest(p_session, p_key_pair, p_sdk, p_at, p_print) as u(session_id, key_pair_id, sdk_type, at, print)
    order by u.session_id
    on conflict (org_id, session_id) do update set last_batch_at = sessions.last_batch_at
    returning session_id, (xmax = 0) as inserted, batch_count, signal_count, first_seen_at
  )
  select array_agg(o.inserted order by u.i), array_agg(o.batch_count order by u.i), array_agg(o.signal_count order by u.i),
    array_agg(o.first_seen_at order by u.i)
  into v_inserted, v_batches, v_signals, v_first
  from unnest(p_session) with ordinality as u(session_id, i) join opened o on o.session_id = u.session_id;

  -- 2. the retry probe, after the locks: it sees every batch committed before them; one partition each
  select array_agg((
    select b.signal_count from session_batches b
    where b.org_id = p_org and b.session_id = u.session_id and b.batch_hash = u.hash and b.session_started_at = v_first[u.i]
  ) order by u.i)
  into v_original
  from unnest(p_session, p_hash) with ordinality as u(session_id, hash, i);

  -- 3. each batch's checks
  for i in 1 .. n loop
    if v_original[i] is not null then
      v_outcome[i] := 'retry';
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
      p_count[x.i] as signal_count, decode(p_packed[x.i], 'hex') as packed, p_at[x.i] as at, v_signals[x.i] + p_count[x.i] as total,
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
