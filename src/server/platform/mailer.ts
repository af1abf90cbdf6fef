export type Mail = { to: string; subject: string; text: string }
/** The development transport (the mail_outbox table) is the mail module's outboxMailer. */
export interface Mailer {
  readonly transport: 'smtp' | 'outbox'
  send(mail: Mail): Promise<void>
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
