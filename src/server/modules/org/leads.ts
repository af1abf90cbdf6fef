import type { AppDeps } from '../../deps'
import type { LeadInput } from './model'

const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000
// Advisory-lock namespace for leads (the migration lock uses the one-argument form).
const LEADS_LOCK_NS = 727_274_101

export type LeadResult = { lead_id: string; created_at: Date; created: boolean }

/**
 * Stores a lead, or returns the lead with the same e-mail and source from the last 24 h.
 * The check and the insert hold an advisory lock on (email, source), so two concurrent
 * submissions cannot both insert.
 */
export async function createLead({ db, clock }: AppDeps, input: LeadInput): Promise<LeadResult> {
  const now = clock.now()
  if (isBot(input.website)) return { lead_id: crypto.randomUUID(), created_at: now, created: true }
  return db.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LEADS_LOCK_NS}::int4, hashtext(${input.email} || '|' || ${input.source}))`
    const [existing]: [{ lead_id: string; created_at: Date }?] = await tx`
      select lead_id, created_at from leads
      where email = ${input.email} and source = ${input.source} and created_at > ${new Date(now.getTime() - DEDUP_WINDOW_MS)}
      order by created_at desc limit 1`
    if (existing) return { ...existing, created: false }
    const leadId = crypto.randomUUID()
    await tx`
      insert into leads (lead_id, email, source, name, company, message, plan_interest, created_at)
      values (${leadId}, ${input.email}, ${input.source}, ${input.name ?? null}, ${input.company ?? null},
              ${input.message ?? null}, ${input.plan_interest ?? null}, ${now})`
    return { lead_id: leadId, created_at: now, created: true }
  }) as Promise<LeadResult>
}

/** The honeypot field is hidden from people; any value in it means a form-filling bot. */
function isBot(website: unknown): boolean {
  if (website === undefined || website === null || website === false) return false
  return typeof website === 'string' ? website.trim() !== '' : true
}
