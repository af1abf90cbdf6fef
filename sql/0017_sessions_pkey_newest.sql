-- Issue 14, seventh part: the foreign-key check of every stored batch must find its session by the
-- primary key, not by scanning the organization's entries of a dashboard index.
-- Owned by src/server/modules/ingest/repo.ts.
--
-- Every session_batches row (and every session_replay row) checks its session with PostgreSQL's
-- generated query `select 1 from only sessions x where org_id = $1 and session_id = $2 for key share`,
-- planned once per connection and kept until the table's statistics change. Planned while sessions is
-- small or never analyzed (a new database; autovacuum off), every index that starts with org_id costs
-- the same as the primary key (one row either way), and PostgreSQL (15 and PGlite's 18 alike) takes
-- the most recently created of the tied indexes: sessions_org_first_seen_idx (0009). There session_id
-- is not a bound of the scan, so each check read all of the organization's entries: 40 % of the
-- ingest function's time and O(sessions of the organization) per batch (bench/README.md, seventh part).
-- With enough rows or statistics the primary key wins by cost; only the tie goes wrong.
--
-- So the primary key is built again, now as the newest index of sessions: the tie goes to it. Nothing
-- else changes (same columns, same name, same foreign keys, which must be dropped to rebuild it and are
-- added again here; re-adding them checks the existing rows once). tests/ingest/fk-check-plan.test.ts
-- fails if a later index on sessions takes the tie again (an index starting with org_id created after
-- this; build the primary key again after it, as here).
do $$
declare
  fk record;
  tables regclass[] := '{}';
  names text[] := '{}';
  defs text[] := '{}';
begin
  -- The constraints on the parent tables only (their partitions' copies go and come with them).
  for fk in
    select conrelid::regclass as tbl, conname, pg_get_constraintdef(oid) as def
    from pg_constraint where confrelid = 'sessions'::regclass and contype = 'f' and conparentid = 0
    order by conrelid::regclass::text, conname
  loop
    tables := tables || fk.tbl;
    names := names || fk.conname::text;
    defs := defs || fk.def;
    execute format('alter table %s drop constraint %I', fk.tbl, fk.conname);
  end loop;
  alter table sessions drop constraint sessions_pkey;
  alter table sessions add constraint sessions_pkey primary key (org_id, session_id);
  for i in 1 .. coalesce(array_length(tables, 1), 0) loop
    execute format('alter table %s add constraint %I %s', tables[i], names[i], defs[i]);
  end loop;
end $$;
