import type { Sql } from '../../platform/db'

/** The only file that names mail_outbox in SQL. */

export async function insertOutbox(sql: Sql, mail: { to: string; subject: string; text: string }): Promise<void> {
  await sql`insert into mail_outbox (to_address, subject, body) values (${mail.to}, ${mail.subject}, ${mail.text})`
}

export function listOutbox(sql: Sql, to: string, limit: number) {
  return sql<{ to_address: string; subject: string; body: string; created_at: Date }[]>`
    select to_address, subject, body, created_at from mail_outbox
    where to_address = ${to} order by created_at desc, mail_id desc limit ${limit}`
}
