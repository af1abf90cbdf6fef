/**
 * Per-organization verdict thresholds (issue 18): read by ingest when it computes a verdict, set and
 * listed over GraphQL. No REST routes.
 */
export { thresholdsGraphQL } from './graphql'
export { DEFAULT_THRESHOLDS, getThresholds, type VerdictThresholds } from './service'
