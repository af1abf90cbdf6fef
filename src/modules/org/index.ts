import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'

// Placeholder until this module's issue lands.
export function orgModule(_deps: AppDeps) {
  return new Elysia({ name: 'org' })
}
