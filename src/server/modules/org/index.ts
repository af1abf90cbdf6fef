import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import { routeSchema } from '../../platform/validation'
import { rateLimit } from '../ratelimit'
import { tenancy } from '../tenancy'
import { createLead } from './leads'
import { LeadBody, TicketBody } from './model'
import { createTicket } from './tickets'
import { getPlanUsage } from './usage'

/** Organization operations (usage, support tickets) and the anonymous lead form. */
export function orgModule(deps: AppDeps) {
  const { db, clock } = deps
  return new Elysia({ name: 'org', prefix: '/v1' })
    .use(tenancy(deps))
    .use(rateLimit(deps))
    .get(
      '/org/usage',
      async ({ principal }) => {
        const usage = await db.tenant(principal.orgId, (tx) => getPlanUsage(tx, principal.orgId, clock.now()))
        if (!usage) throw new ApiError('not_found', 'organization not found')
        return usage
      },
      { auth: ['secret', 'jwt'], rateLimit: { scope: 'key' } }
    )
    .post(
      '/support/tickets',
      async ({ principal, body, status }) => {
        const t = await createTicket(deps, principal, body)
        return status(201, { ticket_id: t.ticket_id, status: t.status, subject: t.subject, priority: t.priority, created_at: t.created_at.toISOString() })
      },
      { auth: ['secret', 'jwt'], rateLimit: { scope: 'key' }, body: routeSchema(TicketBody) }
    )
    .post(
      '/leads',
      async ({ body, status }) => {
        const lead = await createLead(deps, body)
        return status(lead.created ? 201 : 200, { lead_id: lead.lead_id, created_at: lead.created_at.toISOString() })
      },
      { rateLimit: { scope: 'ip', name: 'leads' }, body: routeSchema(LeadBody) }
    )
}
