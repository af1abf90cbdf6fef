import * as v from 'valibot'
import { Email } from '../auth'

export const OutboxQuery = v.object({ to: Email })
export type OutboxQuery = v.InferOutput<typeof OutboxQuery>

/** `code`: the one-time code of a code mail, else null (not in the contract's list: an addition for scripts). */
export type OutboxMessage = { to: string; subject: string; text: string; code: string | null; created_at: string }
