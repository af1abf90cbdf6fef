import type { Sql } from './db'
import type { Logger } from './log'

export type Mail = { to: string; subject: string; text: string }
export interface Mailer {
  readonly transport: 'smtp' | 'outbox'
  send(mail: Mail): Promise<void>
}

/** Development transport: mail lands in the mail_outbox table, readable at GET /dev/mail. */
export function outboxMailer(sql: Sql, log: Logger): Mailer {
  return {
    transport: 'outbox',
    async send(mail) {
      await sql`insert into mail_outbox (to_address, subject, body) values (${mail.to}, ${mail.subject}, ${mail.text})`
      // The console shows that a mail exists, never its content (it may hold a one-time code).
      log.info('mail queued in dev outbox', { to: mail.to, subject: mail.subject, read_at: `/dev/mail?to=${encodeURIComponent(mail.to)}` })
    },
  }
}

export async function smtpMailer(url: string, from: string): Promise<Mailer> {
  const nodemailer = await import('nodemailer')
  const transporter = nodemailer.createTransport(url)
  return {
    transport: 'smtp',
    async send(mail) {
      await transporter.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text })
    },
  }
}
