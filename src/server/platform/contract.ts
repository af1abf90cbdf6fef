import { FEATURE_NAMES } from '../../scoring/features'

/** Constants of the interface contract (shared/API.md), in one place for every module. */

/** Sent as X-API-Version on every response and reported by GET /health. */
export const API_VERSION = '1.0.0'

/** The SDKs a key pair and an ingest batch may name. */
export const SDK_TYPES = ['web', 'ios', 'android', 'server'] as const
export type SdkType = (typeof SDK_TYPES)[number]

/** Ids in paths, bodies and tokens (any UUID version, either case). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Length of the client feature vector: whatever the scoring library's feature list says. */
export const FEATURE_COUNT = FEATURE_NAMES.length
