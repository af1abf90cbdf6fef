import type { Sql } from '../../platform/db'
import type { OutboxMessage } from './model'

export const OUTBOX_PAGE = 50

/** The newest messages sent to one address through the development outbox. */
export async function listOutbox(sql: Sql, to: string): Promise<OutboxMessage[]> {
  const rows = await sql<{ to_address: string; subject: string; body: string; created_at: Date }[]>`
    select to_address, subject, body, created_at from mail_outbox
    where to_address = ${to} order by created_at desc, mail_id desc limit ${OUTBOX_PAGE}`
  return rows.map((r) => ({ to: r.to_address, subject: r.subject, text: r.body, created_at: r.created_at.toISOString() }))
}
