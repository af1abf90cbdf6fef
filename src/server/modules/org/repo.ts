import type { Sql, Tx } from '../../platform/db'
import type { Priority, Ticket } from './model'

/** The only file that names organizations, plans, support_tickets and leads in SQL. */

type Q = Sql | Tx

export async function insertOrganization(sql: Q, org: { orgId: string; name: string; planId: string; createdAt?: Date }): Promise<void> {
  const row = { org_id: org.orgId, name: org.name, plan_id: org.planId, ...(org.createdAt ? { created_at: org.createdAt } : {}) }
  await sql`insert into organizations ${sql(row)}`
}

export async function renameOrganization(sql: Q, orgId: string, name: string): Promise<void> {
  await sql`update organizations set name = ${name} where org_id = ${orgId}`
}

export async function countOrganizations(sql: Q): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from organizations`
  return count
}

export type OrgPlan = {
  org_id: string
  name: string
  plan_id: string
  display_name: string
  sessions_limit: number
  rate_limit_per_minute: number | null
}

/** An organization with its plan, or null. */
export async function findOrgPlan(sql: Q, orgId: string): Promise<OrgPlan | null> {
  const [row]: [OrgPlan?] = await sql`
    select o.org_id, o.name, o.plan_id, p.display_name, p.sessions_limit, p.rate_limit_per_minute
    from organizations o join plans p on p.plan_id = o.plan_id
    where o.org_id = ${orgId}`
  return row ?? null
}

export async function planRateLimit(sql: Q, planId: string): Promise<number | null> {
  const [row]: [{ rate_limit_per_minute: number | null }?] = await sql`
    select rate_limit_per_minute from plans where plan_id = ${planId}`
  return row?.rate_limit_per_minute ?? null
}

export type PlanRow = { plan_id: string; display_name: string; sessions_limit: number; rate_limit_per_minute?: number | null }

export async function upsertPlan(sql: Q, p: PlanRow): Promise<void> {
  await sql`
    insert into plans (plan_id, display_name, sessions_limit, rate_limit_per_minute)
    values (${p.plan_id}, ${p.display_name}, ${p.sessions_limit}, ${p.rate_limit_per_minute ?? null})
    on conflict (plan_id) do update set display_name = excluded.display_name,
      sessions_limit = excluded.sessions_limit, rate_limit_per_minute = excluded.rate_limit_per_minute, updated_at = now()`
}

export async function insertTicket(
  tx: Tx,
  t: {
    orgId: string
    ticketId: string
    userId: string | null
    keyPairId: string | null
    subject: string
    message: string
    priority: Priority
    createdAt: Date
  }
): Promise<void> {
  await tx`
    insert into support_tickets (org_id, ticket_id, user_id, key_pair_id, subject, message, priority, status, created_at)
    values (${t.orgId}, ${t.ticketId}, ${t.userId}, ${t.keyPairId}, ${t.subject}, ${t.message}, ${t.priority}, 'open', ${t.createdAt})`
}

export async function organizationName(tx: Q, orgId: string): Promise<string | null> {
  const [org]: [{ name: string }?] = await tx`select name from organizations where org_id = ${orgId}`
  return org?.name ?? null
}

export function listTickets(tx: Tx, orgId: string): Promise<Ticket[]> {
  return tx<Ticket[]>`
    select ticket_id, subject, message, priority, status, created_at
    from support_tickets where org_id = ${orgId}
    order by created_at desc, ticket_id`
}

// Advisory-lock namespace for leads (the migration lock uses the one-argument form).
const LEADS_LOCK_NS = 727_274_101

/** Serialises lead submissions with the same e-mail and source until the transaction ends. */
export async function lockLead(tx: Tx, email: string, source: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(${LEADS_LOCK_NS}::int4, hashtext(${email} || '|' || ${source}))`
}

export async function findRecentLead(tx: Tx, email: string, source: string, since: Date) {
  const [existing]: [{ lead_id: string; created_at: Date }?] = await tx`
    select lead_id, created_at from leads
    where email = ${email} and source = ${source} and created_at > ${since}
    order by created_at desc limit 1`
  return existing ?? null
}

export async function insertLead(
  tx: Tx,
  lead: {
    leadId: string
    email: string
    source: string
    name: string | null
    company: string | null
    message: string | null
    planInterest: string | null
    createdAt: Date
  }
): Promise<void> {
  await tx`
    insert into leads (lead_id, email, source, name, company, message, plan_interest, created_at)
    values (${lead.leadId}, ${lead.email}, ${lead.source}, ${lead.name}, ${lead.company},
            ${lead.message}, ${lead.planInterest}, ${lead.createdAt})`
}
