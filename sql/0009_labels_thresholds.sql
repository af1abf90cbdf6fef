-- Issue 18: customers' labels on sessions and per-organization verdict thresholds.

-- The label lives on its session (relabelling replaces it): owned by src/server/modules/ingest/repo.ts.
-- labeled_by: who labelled it, as it read then (a user's e-mail, or 'api key <name>').
alter table sessions
  add column label text check (label in ('human', 'bot')),
  add column label_note text check (char_length(label_note) <= 500),
  add column labeled_at timestamptz,
  add column labeled_by text;

-- 0008's covering index again, with the label: error rates, the threshold simulation and the stats
-- read verdict, hcs and label from the index alone.
drop index sessions_org_first_seen_idx;
create index sessions_org_first_seen_idx on sessions (org_id, first_seen_at desc, session_id desc) include (verdict, hcs, label);
-- listSessions filtered by label, and the export of labelled sessions.
create index sessions_org_label_first_seen_idx on sessions (org_id, label, first_seen_at desc, session_id desc) where label is not null;

-- Owned by src/server/modules/thresholds/repo.ts. No row: the defaults (70 / 30).
create table verdict_thresholds (
  org_id      uuid primary key references organizations (org_id) on delete cascade,
  bot_below   double precision not null,
  human_above double precision not null,
  updated_at  timestamptz not null,
  check (0 < bot_below and bot_below <= human_above and human_above < 100)
);
-- Every change, who made it and what it replaced.
create table threshold_changes (
  org_id               uuid not null references organizations (org_id) on delete cascade,
  changed_at           timestamptz not null,
  changed_by           text not null,
  previous_bot_below   double precision not null,
  previous_human_above double precision not null,
  bot_below            double precision not null,
  human_above          double precision not null
);
create index threshold_changes_org_idx on threshold_changes (org_id, changed_at desc);

grant select, insert, update, delete on verdict_thresholds, threshold_changes to bss_tenant;
alter table verdict_thresholds enable row level security;
alter table threshold_changes enable row level security;
create policy tenant_isolation on verdict_thresholds to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on threshold_changes to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
