-- Initial schema for the whole v1 contract.
-- Every tenant table carries org_id and leads its primary key / indexes with it,
-- so each tenant's rows cluster together and every lookup is scoped by tenant first.

create table plans (
  plan_id              text primary key,
  display_name         text not null,
  sessions_limit       integer not null check (sessions_limit >= 0),
  -- optional per-plan overrides of the API-key rate limit (requests per minute)
  rate_limit_per_minute integer check (rate_limit_per_minute > 0),
  updated_at           timestamptz not null default now()
);

create table organizations (
  org_id     uuid primary key,
  name       text not null,
  plan_id    text not null references plans (plan_id),
  created_at timestamptz not null default now()
);

-- Users are global (one login per e-mail); what they may touch comes from memberships.
create table users (
  user_id           uuid primary key,
  email             text not null unique,
  name              text,
  password_hash     text not null,
  email_verified_at timestamptz,
  created_at        timestamptz not null default now()
);

create table memberships (
  org_id     uuid not null references organizations (org_id) on delete cascade,
  user_id    uuid not null references users (user_id) on delete cascade,
  role       text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
create index memberships_user_idx on memberships (user_id);

-- The public key is not a secret; the secret key is kept only as its SHA-256 hex digest.
create table api_key_pairs (
  org_id          uuid not null references organizations (org_id) on delete cascade,
  key_pair_id     uuid not null,
  name            text not null,
  sdk_type        text not null check (sdk_type in ('web', 'ios', 'android', 'server')),
  public_key      text not null,
  secret_hash     text not null,
  allowed_origins text[] not null default '{}',
  created_at      timestamptz not null default now(),
  rotated_at      timestamptz,
  last_used_at    timestamptz,
  revoked_at      timestamptz,
  primary key (org_id, key_pair_id),
  unique (key_pair_id)
);
-- Credential lookups arrive without an organization: these two indexes are the only global ones.
create unique index api_key_pairs_public_key_idx on api_key_pairs (public_key);
create unique index api_key_pairs_secret_hash_idx on api_key_pairs (secret_hash);

-- A session counts once, toward usage_month (the UTC month of its first batch).
create table sessions (
  org_id          uuid not null references organizations (org_id) on delete cascade,
  session_id      uuid not null,
  key_pair_id     uuid,
  sdk_type        text not null,
  usage_month     date not null,
  first_seen_at   timestamptz not null default now(),
  last_batch_at   timestamptz not null default now(),
  signal_count    integer not null default 0,
  batch_count     integer not null default 0,
  client_features double precision[],
  fingerprint     text,
  hcs             numeric(4, 1),
  m3_score        numeric(5, 4),
  verdict         text,
  reasons         text[] not null default '{}',
  model_version   text,
  scored_at       timestamptz,
  primary key (org_id, session_id)
);
create index sessions_org_month_idx on sessions (org_id, usage_month);
create index sessions_org_fingerprint_idx on sessions (org_id, fingerprint) where fingerprint is not null;

-- Raw signals: one row per batch (JSONB), never one row per event.
-- signals becomes null when the retention job purges it; the counts stay.
create table session_batches (
  org_id       uuid not null,
  session_id   uuid not null,
  seq          integer not null,
  captured_at  timestamptz not null,
  batch_hash   text not null,
  signal_count integer not null,
  signals      jsonb,
  received_at  timestamptz not null default now(),
  primary key (org_id, session_id, seq),
  unique (org_id, session_id, batch_hash),
  foreign key (org_id, session_id) references sessions (org_id, session_id) on delete cascade
);
create index session_batches_retention_idx on session_batches (received_at) where signals is not null;

create table usage_counters (
  org_id        uuid not null references organizations (org_id) on delete cascade,
  month         date not null,
  sessions_used integer not null default 0 check (sessions_used >= 0),
  primary key (org_id, month)
);

create table otp_challenges (
  challenge_id   uuid primary key,
  user_id        uuid not null references users (user_id) on delete cascade,
  org_id         uuid references organizations (org_id) on delete cascade,
  purpose        text not null check (purpose in ('register', 'login')),
  code_hash      text not null,
  attempts       integer not null default 0,
  expires_at     timestamptz not null,
  consumed_at    timestamptz,
  invalidated_at timestamptz,
  created_at     timestamptz not null default now()
);
create index otp_challenges_user_idx on otp_challenges (user_id, created_at);

-- Lucia-style refresh tokens: the token's SHA-256 is the key; a family is one login.
create table refresh_tokens (
  token_hash  text primary key,
  family_id   uuid not null,
  user_id     uuid not null references users (user_id) on delete cascade,
  org_id      uuid not null references organizations (org_id) on delete cascade,
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  rotated_at  timestamptz,
  revoked_at  timestamptz
);
create index refresh_tokens_family_idx on refresh_tokens (family_id);

create table mail_outbox (
  mail_id    bigserial primary key,
  to_address text not null,
  subject    text not null,
  body       text not null,
  created_at timestamptz not null default now()
);
create index mail_outbox_to_idx on mail_outbox (to_address, created_at desc);

create table support_tickets (
  org_id      uuid not null references organizations (org_id) on delete cascade,
  ticket_id   uuid not null,
  user_id     uuid references users (user_id) on delete set null,
  key_pair_id uuid,
  subject     text not null,
  message     text not null,
  priority    text not null check (priority in ('low', 'normal', 'high', 'urgent')),
  status      text not null default 'open' check (status in ('open', 'pending', 'closed')),
  created_at  timestamptz not null default now(),
  primary key (org_id, ticket_id)
);

-- Leads come from anonymous marketing pages: no organization.
create table leads (
  lead_id       uuid primary key,
  email         text not null,
  source        text not null check (source in ('pricing_page', 'chat_widget')),
  name          text,
  company       text,
  message       text,
  plan_interest text,
  created_at    timestamptz not null default now()
);
create index leads_email_source_idx on leads (email, source, created_at desc);
