import type { Sql } from '../../platform/db'
import type { Logger } from '../../platform/log'
import type { Mailer } from '../../platform/mailer'
import type { OutboxMessage } from './model'
import * as repo from './repo'

export const OUTBOX_PAGE = 50

/** Development transport: mail lands in the mail_outbox table, readable at GET /dev/mail. */
export function outboxMailer(sql: Sql, log: Logger): Mailer {
  return {
    transport: 'outbox',
    async send(mail) {
      await repo.insertOutbox(sql, mail)
      // The console shows that a mail exists, never its content (it may hold a one-time code).
      log.info('mail queued in dev outbox', { to: mail.to, subject: mail.subject, read_at: `/dev/mail?to=${encodeURIComponent(mail.to)}` })
    },
  }
}

const CODE_IN_TEXT = /verification code is (\d{6})\b/

/** The newest messages sent to one address through the development outbox. */
export async function listOutbox(sql: Sql, to: string): Promise<OutboxMessage[]> {
  const rows = await repo.listOutbox(sql, to, OUTBOX_PAGE)
  return rows.map((r) => ({
    to: r.to_address,
    subject: r.subject,
    text: r.body,
    // The one-time code as a field of its own, so a script reads it without parsing the text (README).
    code: CODE_IN_TEXT.exec(r.body)?.[1] ?? null,
    created_at: r.created_at.toISOString(),
  }))
}
