// The "Support" view: open a ticket, and the organization's tickets with their status.
import * as api from './api'
import { $, detailsByField, fail, field, fmtDate, h, say, submitting, table, value } from './dom'

type Ticket = { ticketId: string; subject: string; priority: string; status: string; createdAt: string }

export function supportView(role: api.Organization['role']): HTMLElement {
  const canRead = role !== 'member'
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'support-title' },
    h('h2', { id: 'support-title' }, 'Support'),
    ticketForm(canRead),
    h('h3', {}, 'Your organization’s tickets'),
    h(
      'div',
      { id: 'tickets' },
      canRead ? h('p', {}, 'Loading…') : h('p', { class: 'hint' }, 'Only owners and admins can see the organization’s tickets.')
    )
  )
  if (canRead) queueMicrotask(() => void loadTickets())
  return section
}

async function loadTickets() {
  const box = $('tickets')
  try {
    const { listSupportTickets } = await api.graphql<{ listSupportTickets: Ticket[] }>(
      '{ listSupportTickets { ticketId subject priority status createdAt } }'
    )
    if (listSupportTickets.length === 0) {
      box.replaceChildren(h('p', {}, 'No tickets yet.'))
      return
    }
    box.replaceChildren(
      table(
        'Support tickets',
        ['Subject', 'Status', 'Priority', 'Opened'],
        listSupportTickets.map((t) => [
          t.subject,
          h('span', { class: `badge ticket-${t.status}` }, t.status),
          t.priority,
          fmtDate(t.createdAt),
        ]),
        { id: 'tickets-table' }
      )
    )
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Tickets are not available right now.'))
    fail(error)
  }
}

function ticketForm(canRead: boolean): HTMLElement {
  const form = h(
    'form',
    { id: 'ticket-form' },
    field('ticket-subject', 'Subject', { type: 'text', required: true, maxlength: 200 }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'ticket-priority' }, 'Priority'),
      h(
        'select',
        { id: 'ticket-priority', name: 'ticket-priority' },
        ...['low', 'normal', 'high', 'urgent'].map((p) => h('option', { value: p, selected: p === 'normal' }, p))
      )
    ),
    field('ticket-message', 'Message', { required: true, maxlength: 10000, rows: 5 }, undefined, 'textarea'),
    h('button', { type: 'submit', class: 'primary' }, 'Send to support')
  ) as HTMLFormElement
  submitting(
    form,
    async () => {
      const ticket = await api.openTicket({
        subject: value(form, 'ticket-subject'),
        message: value(form, 'ticket-message'),
        priority: value(form, 'ticket-priority'),
      })
      form.reset()
      say(`Ticket ${ticket.ticket_id} opened (${ticket.priority} priority). We will answer by e-mail.`)
      if (canRead) await loadTickets()
    },
    (error) => detailsByField(error, { subject: 'ticket-subject', message: 'ticket-message', priority: 'ticket-priority' })
  )
  return form
}
