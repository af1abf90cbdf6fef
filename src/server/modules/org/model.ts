import * as v from 'valibot'

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export type Priority = (typeof PRIORITIES)[number]

/** Trimmed text: after trimming, at least `min` and at most `max` characters, no NUL (PostgreSQL text cannot hold it). */
const text = (field: string, min: number, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.trim(),
    v.minLength(min, `${field} must not be empty`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
    v.excludes('\u0000', `${field} must not contain NUL characters`)
  )

/** An optional trimmed text; null, empty or blank means "not given". */
const optionalText = (field: string, max: number) =>
  v.pipe(
    v.optional(v.nullable(text(field, 0, max))),
    v.transform((s) => (s ? s : null))
  )

export const TicketBody = v.object({
  subject: text('subject', 1, 200),
  message: text('message', 1, 10_000),
  priority: v.optional(v.picklist(PRIORITIES, `priority must be one of ${PRIORITIES.join(', ')}`), 'normal'),
})
export type TicketInput = v.InferOutput<typeof TicketBody>

export const LEAD_SOURCES = ['pricing_page', 'chat_widget'] as const

export const LeadBody = v.object({
  email: v.pipe(
    v.string('email must be a string'),
    v.trim(),
    v.minLength(1, 'email must not be empty'),
    v.maxLength(254, 'email must be at most 254 characters'),
    v.email('email must be a valid e-mail address'),
    v.toLowerCase()
  ),
  source: v.picklist(LEAD_SOURCES, `source must be one of ${LEAD_SOURCES.join(', ')}`),
  name: optionalText('name', 100),
  company: optionalText('company', 200),
  message: optionalText('message', 5_000),
  plan_interest: optionalText('plan_interest', 50),
  /** Honeypot: hidden in the marketing forms, so only bots fill it in. Any value is accepted. */
  website: v.optional(v.unknown()),
})
export type LeadInput = v.InferOutput<typeof LeadBody>

export type Ticket = {
  ticket_id: string
  subject: string
  message: string
  priority: Priority
  status: 'open' | 'pending' | 'closed'
  created_at: Date
}

// Response shapes, for the OpenAPI document.
export const TicketSchema = v.object({
  ticket_id: v.pipe(v.string(), v.uuid()),
  status: v.picklist(['open', 'pending', 'closed']),
  subject: v.string(),
  priority: v.picklist(PRIORITIES),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
})

export const LeadSchema = v.object({ lead_id: v.pipe(v.string(), v.uuid()), created_at: v.pipe(v.string(), v.isoTimestamp()) })

/** The documented lead body: the honeypot field stays out of the reference (bots read it too). */
export const LeadBodyDoc = v.omit(LeadBody, ['website'])
