-- Issue 15, item 8: token buckets that must outlive a Redis outage and a restart. The per-account
-- login and one-time-code limits (15-minute windows) live here, in the database every instance
-- shares, instead of in Redis or per-instance memory, which forgot exhausted buckets. Owned by
-- src/server/modules/ratelimit/repo.ts. Keys are SHA-256 digests (no e-mail address is stored).
create table rate_limit_buckets (
  bucket_key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null,
  window_ms integer not null,
  allowed boolean not null
);
-- The purge deletes buckets idle longer than their window (they are full again).
create index rate_limit_buckets_updated_at on rate_limit_buckets (updated_at);
