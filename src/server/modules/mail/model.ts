import * as v from 'valibot'
import { Email } from '../auth'

export const OutboxQuery = v.object({ to: Email })
export type OutboxQuery = v.InferOutput<typeof OutboxQuery>

export type OutboxMessage = { to: string; subject: string; text: string; created_at: string }
