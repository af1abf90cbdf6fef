-- Issue 16: Idempotency-Key (API.md, "Idempotency"). One row per (scope, key): the scope is the
-- credential's organization or the client IP. Owned by src/server/modules/idempotency/repo.ts.
-- The key is stored as a SHA-256 digest and the response encrypted with a key derived from it, so
-- a reader of this table learns neither the keys nor the answers (verify-otp's tokens among them).
create table idempotency_keys (
  key_digest text primary key,
  request_digest text not null,
  -- which request holds the claim (random), so a late finisher cannot store over a newer claim.
  claim_id text not null,
  -- null while the first request runs; a second one meanwhile is answered 409.
  completed_at timestamptz,
  locked_until timestamptz not null,
  expires_at timestamptz not null,
  response bytea
);
create index idempotency_keys_expires_at on idempotency_keys (expires_at);
