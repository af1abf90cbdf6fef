import type { Config } from '../../platform/config'
import type { Clock } from '../../platform/clock'
import type { Db, Sql, Tx } from '../../platform/db'
import type { Logger } from '../../platform/log'
import type { Mailer } from '../../platform/mailer'
import type { Principal } from '../../plugins/auth'
import type { LeadInput, Ticket, TicketInput } from './model'
import * as repo from './repo'

export type { OrgPlan, PlanRow } from './repo'

/** Creates an organization on a plan; its owner is added by the caller (auth's createAccount) in the same transaction. */
export async function createOrganization(sql: Sql | Tx, input: { name: string; planId?: string; createdAt?: Date }): Promise<string> {
  const orgId = crypto.randomUUID()
  await repo.insertOrganization(sql, { orgId, name: input.name, planId: input.planId ?? 'free', createdAt: input.createdAt })
  return orgId
}

export const renameOrganization = repo.renameOrganization
export const countOrganizations = repo.countOrganizations
export const findOrgPlan = repo.findOrgPlan
export const planRateLimit = repo.planRateLimit

/** Upserts the plan catalog (tenants/plans.json) so limits change with a deploy, not by hand. */
export async function upsertPlans(sql: Sql, plans: repo.PlanRow[]): Promise<void> {
  for (const p of plans) await repo.upsertPlan(sql, p)
}

/** Stores a ticket in the caller's organization (never one named in the body) and notifies support. */
export async function createTicket(
  { db, clock, mailer, config, log }: { db: Db; clock: Clock; mailer: Mailer; config: Pick<Config, 'supportEmail'>; log: Logger },
  principal: Principal,
  input: TicketInput
): Promise<Ticket> {
  const ticketId = crypto.randomUUID()
  const createdAt = clock.now()
  const orgName = await db.tenant(principal.orgId, async (tx) => {
    await repo.insertTicket(tx, {
      orgId: principal.orgId,
      ticketId,
      userId: principal.kind === 'jwt' ? (principal.userId ?? null) : null,
      keyPairId: principal.kind === 'secret' ? (principal.keyPairId ?? null) : null,
      subject: input.subject,
      message: input.message,
      priority: input.priority,
      createdAt,
    })
    return (await repo.organizationName(tx, principal.orgId)) ?? principal.orgId
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
    log.error('support ticket notification failed', {
      org_id: principal.orgId,
      ticket_id: ticketId,
      error: String((error as Error)?.message ?? error),
    })
  }
  return {
    ticket_id: ticketId,
    subject: input.subject,
    message: input.message,
    priority: input.priority,
    status: 'open',
    created_at: createdAt,
  }
}

/** The organization's tickets, newest first. */
export function listTickets(db: Db, orgId: string): Promise<Ticket[]> {
  return db.tenant(orgId, (tx) => repo.listTickets(tx, orgId))
}

// A user-supplied subject must not break the mail header onto a second line.
const oneLine = (s: string) => s.replace(/[\r\n\t\u2028\u2029]+/g, ' ').slice(0, 250)

const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000

export type LeadResult = { lead_id: string; created_at: Date; created: boolean }

/**
 * Stores a lead, or returns the lead with the same e-mail and source from the last 24 h.
 * The check and the insert hold an advisory lock on (email, source), so two concurrent
 * submissions cannot both insert.
 */
export async function createLead({ db, clock }: { db: Db; clock: Clock }, input: LeadInput): Promise<LeadResult> {
  const now = clock.now()
  if (isBot(input.website)) return { lead_id: crypto.randomUUID(), created_at: now, created: true }
  return db.sql.begin(async (tx) => {
    await repo.lockLead(tx, input.email, input.source)
    const existing = await repo.findRecentLead(tx, input.email, input.source, new Date(now.getTime() - DEDUP_WINDOW_MS))
    if (existing) return { ...existing, created: false }
    const leadId = crypto.randomUUID()
    await repo.insertLead(tx, {
      leadId,
      email: input.email,
      source: input.source,
      name: input.name ?? null,
      company: input.company ?? null,
      message: input.message ?? null,
      planInterest: input.plan_interest ?? null,
      createdAt: now,
    })
    return { lead_id: leadId, created_at: now, created: true }
  }) as Promise<LeadResult>
}

/** The honeypot field is hidden from people; any value in it means a form-filling bot. */
function isBot(website: unknown): boolean {
  if (website === undefined || website === null || website === false) return false
  return typeof website === 'string' ? website.trim() !== '' : true
}
