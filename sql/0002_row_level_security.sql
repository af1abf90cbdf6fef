-- Row-level security: a second wall behind the `where org_id = …` in every tenant query.
-- Tenant-scoped work runs in db.tenant(orgId, …): a transaction that switches to the role
-- bss_tenant (no BYPASSRLS) and sets app.org_id. Under that role a row of another organization,
-- or any row when app.org_id is unset, is invisible and cannot be written.
-- Credential resolution and sign-in (which must find an organization from a key or an e-mail)
-- run before an organization is known and keep the connection's own role.

do $$
begin
  create role bss_tenant nologin;
exception when duplicate_object then null; -- roles are per cluster: another database may have made it
end $$;

-- The connecting role must be allowed to switch to bss_tenant (a no-op for a superuser).
do $$
begin
  execute format('grant bss_tenant to %I', current_user);
exception when others then null;
end $$;

grant usage on schema public to bss_tenant;
grant select on plans, organizations, memberships to bss_tenant;
grant select, insert, update, delete on api_key_pairs, sessions, session_batches, usage_counters, support_tickets to bss_tenant;

-- An unset or empty app.org_id matches nothing (null never equals a uuid).
create function app_org_id() returns uuid language sql stable as
  $$ select nullif(current_setting('app.org_id', true), '')::uuid $$;
grant execute on function app_org_id() to bss_tenant;

alter table organizations enable row level security;
alter table memberships enable row level security;
alter table api_key_pairs enable row level security;
alter table sessions enable row level security;
alter table session_batches enable row level security;
alter table usage_counters enable row level security;
alter table support_tickets enable row level security;

create policy tenant_isolation on organizations to bss_tenant using (org_id = app_org_id());
create policy tenant_isolation on memberships to bss_tenant using (org_id = app_org_id());
create policy tenant_isolation on api_key_pairs to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on sessions to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on session_batches to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on usage_counters to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
create policy tenant_isolation on support_tickets to bss_tenant using (org_id = app_org_id()) with check (org_id = app_org_id());
