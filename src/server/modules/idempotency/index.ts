/** Idempotency-Key storage (API.md, "Idempotency"); the HTTP side is plugins/idempotency.ts, wired in services.ts. */
export { deleteExpired } from './repo'
export {
  type Begin,
  type Claim,
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyStore,
  idempotencyStore,
  type StoredResponse,
} from './service'
