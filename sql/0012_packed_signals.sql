-- Issue 14: raw signals stored compactly. A batch's validated events are now written as `packed`
-- (bytea): a columnar binary encoding, deflated (src/server/modules/ingest/codec.ts), ≈ 4 bytes per
-- signal instead of ≈ 13 as TOAST-compressed JSONB (bench/README.md). Rows written before keep their
-- JSONB in `signals` and are read as they are: a batch has one or the other (or neither once purged).
-- Owned by src/server/modules/ingest/repo.ts.
alter table session_batches add column packed bytea;
drop index session_batches_retention_idx;
create index session_batches_retention_idx on session_batches (received_at) where signals is not null or packed is not null;
