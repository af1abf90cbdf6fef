-- Issue 16: rotateApiKey(keyPairId, gracePeriodSeconds) keeps the replaced secret working until
-- previous_secret_expires_at, so a customer can roll the new secret out before the old one stops.
-- One previous secret per pair (a second rotation replaces it). Owned by modules/keys/repo.ts.
alter table api_key_pairs add column previous_secret_hash text;
alter table api_key_pairs add column previous_secret_expires_at timestamptz;
-- Credential lookups find a pair by either hash; like secret_hash, a global unique index.
create unique index api_key_pairs_previous_secret_hash_idx on api_key_pairs (previous_secret_hash)
  where previous_secret_hash is not null;
