import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { ingestCors } from '../tenancy/cors'

/**
 * API key pairs are managed over GraphQL (src/server/modules/keys/graphql.ts) and resolved by tenancy.
 * This module carries the browser CORS answer for the route those public keys are used on.
 */
export function keysModule(_deps: AppDeps) {
  return new Elysia({ name: 'keys' }).use(ingestCors())
}
