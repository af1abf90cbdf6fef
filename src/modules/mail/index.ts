import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'

// Placeholder until this module's issue lands.
export function mailModule(_deps: AppDeps) {
  return new Elysia({ name: 'mail' })
}
