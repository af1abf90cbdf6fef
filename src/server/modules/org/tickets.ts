import type { AppDeps } from '../../deps'
import type { Principal } from '../tenancy'
import type { Priority, TicketInput } from './model'

export type Ticket = {
  ticket_id: string
  subject: string
  message: string
  priority: Priority
  status: 'open' | 'pending' | 'closed'
  created_at: Date
}

/** Stores a ticket in the caller's organization (never one named in the body) and notifies support. */
export async function createTicket({ db, clock, mailer, config, log }: AppDeps, principal: Principal, input: TicketInput): Promise<Ticket> {
  const ticketId = crypto.randomUUID()
  const createdAt = clock.now()
  const { orgName } = await db.tenant(principal.orgId, async (tx) => {
    await tx`
      insert into support_tickets (org_id, ticket_id, user_id, key_pair_id, subject, message, priority, status, created_at)
      values (${principal.orgId}, ${ticketId}, ${principal.kind === 'jwt' ? (principal.userId ?? null) : null},
              ${principal.kind === 'secret' ? (principal.keyPairId ?? null) : null},
              ${input.subject}, ${input.message}, ${input.priority}, 'open', ${createdAt})`
    const [org]: [{ name: string }?] = await tx`select name from organizations where org_id = ${principal.orgId}`
    return { orgName: org?.name ?? principal.orgId }
  })
  // The ticket is the record; the e-mail is a notification, so a mail failure does not lose the ticket.
  try {
    await mailer.send({
      to: config.supportEmail,
      subject: oneLine(`[support][${input.priority}] ${orgName}: ${input.subject}`),
      text: [
        `Organization: ${orgName} (${principal.orgId})`,
        `Ticket: ${ticketId}`,
        `Priority: ${input.priority}`,
        `From: ${principal.kind === 'jwt' ? `user ${principal.userId}` : `API key pair ${principal.keyPairId}`}`,
        `Created: ${createdAt.toISOString()}`,
        '',
        `Subject: ${input.subject}`,
        '',
        input.message,
      ].join('\n'),
    })
  } catch (error) {
    log.error('support ticket notification failed', { org_id: principal.orgId, ticket_id: ticketId, error: String((error as Error)?.message ?? error) })
  }
  return { ticket_id: ticketId, subject: input.subject, message: input.message, priority: input.priority, status: 'open', created_at: createdAt }
}

/** The organization's tickets, newest first. */
export async function listTickets({ db }: AppDeps, orgId: string): Promise<Ticket[]> {
  return db.tenant(orgId, (tx) => tx<Ticket[]>`
    select ticket_id, subject, message, priority, status, created_at
    from support_tickets where org_id = ${orgId}
    order by created_at desc, ticket_id`)
}

// A user-supplied subject must not break the mail header onto a second line.
const oneLine = (s: string) => s.replace(/[\r\n\t\u2028\u2029]+/g, ' ').slice(0, 250)
