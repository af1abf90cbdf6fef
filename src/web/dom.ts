// DOM helpers shared by the dashboard's views. Every text goes in through textContent or a text
// node (h's string children), never innerHTML.
import { ApiFailure } from './api'

type AttrValue = string | boolean | number | undefined | null | ((e: Event) => void)
export type Attrs = Record<string, AttrValue>
export type Child = Node | string | null | undefined | false

function build<T extends Element>(node: T, attrs: Attrs, children: Child[]): T {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value)
    else if (value === true) node.setAttribute(name, '')
    else node.setAttribute(name, String(value))
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child)
  return node
}

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  return build(document.createElement(tag), attrs, children)
}

const SVG_NS = 'http://www.w3.org/2000/svg'

export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  return build(document.createElementNS(SVG_NS, tag) as SVGElement, attrs, children)
}

export const $ = (id: string) => document.getElementById(id)!

let messageTimer: ReturnType<typeof setTimeout> | undefined

export function say(text: string) {
  $('errors').textContent = ''
  const box = $('messages')
  box.textContent = text
  clearTimeout(messageTimer)
  messageTimer = setTimeout(() => (box.textContent = ''), 8000)
}

/** A failure not tied to one field, in plain words (the service's own message only as a fallback). */
export function fail(error: unknown) {
  $('messages').textContent = ''
  $('errors').textContent = plainWords(error)
}

export function clearNotes() {
  $('messages').textContent = ''
  $('errors').textContent = ''
}

export function plainWords(error: unknown): string {
  if (!(error instanceof ApiFailure)) return 'Something went wrong. Please try again.'
  switch (error.code) {
    case 'RATE_LIMITED':
    case 'rate_limited':
      return 'Too many requests in a short time. Wait a moment, then try again.'
    case 'UNAVAILABLE':
    case 'unavailable':
      return 'The service is briefly unavailable. Try again in a few seconds.'
    case 'FORBIDDEN':
    case 'forbidden':
      return 'Your role does not allow this. Ask an owner or admin of the organization.'
    case 'network':
      return 'The service could not be reached. Check the connection and try again.'
    default:
      return sentence(error.message)
  }
}

/** "must not be empty" → "Must not be empty." */
export function sentence(text: string): string {
  const t = text.trim()
  if (!t) return t
  return t[0]!.toUpperCase() + t.slice(1) + (/[.!?…]$/.test(t) ? '' : '.')
}

/** A labelled input with a slot for its error (filled by showFieldErrors). */
export function field(id: string, label: string, input: Attrs, hint?: string, tag = 'input'): HTMLElement {
  const hintId = hint ? `${id}-hint` : undefined
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h(tag, { id, name: id, ...input, 'aria-describedby': hintId }),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true })
  )
}

export function value(form: HTMLFormElement, name: string): string {
  return ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim()
}

function describedBy(input: Element, id: string, on: boolean) {
  const ids = new Set((input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean))
  if (on) ids.add(id)
  else ids.delete(id)
  if (ids.size) input.setAttribute('aria-describedby', [...ids].join(' '))
  else input.removeAttribute('aria-describedby')
}

export function clearFieldErrors(form: HTMLElement) {
  for (const input of form.querySelectorAll('[aria-invalid="true"]')) {
    input.removeAttribute('aria-invalid')
    describedBy(input, `${input.id}-error`, false)
  }
  for (const slot of form.querySelectorAll<HTMLElement>('.field-error')) {
    slot.textContent = ''
    slot.hidden = true
  }
}

/** Marks each input named in `errors` (input id → messages) invalid, with its messages under it; focuses the first. */
export function showFieldErrors(form: HTMLElement, errors: Map<string, string[]>): boolean {
  let first: HTMLElement | null = null
  for (const [id, messages] of errors) {
    const input = form.querySelector<HTMLElement>(`#${id}`)
    const slot = form.querySelector<HTMLElement>(`#${id}-error`)
    if (!input || !slot) continue
    input.setAttribute('aria-invalid', 'true')
    describedBy(input, slot.id, true)
    slot.textContent = messages.map(sentence).join('\n')
    slot.hidden = false
    first ??= input
  }
  first?.focus()
  // Selected, so typing the corrected value replaces the wrong one.
  if (first instanceof HTMLInputElement && first.type !== 'password') first.select()
  return first !== null
}

/**
 * Maps an error's details to the form's inputs: `paths` names, per detail path prefix (the part
 * before any `[index]` or `.`), the input id it belongs to.
 */
export function detailsByField(error: ApiFailure, paths: Record<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const d of error.details) {
    const id = paths[d.path.split(/[[.]/)[0]!]
    if (!id) continue
    out.set(id, [...(out.get(id) ?? []), d.message])
  }
  return out
}

export type FieldErrors = (error: ApiFailure) => Map<string, string[]>

/**
 * Runs a form's action with its submit button disabled. A failure tied to fields is shown at those
 * fields (aria-invalid, the words under the input); anything else in the alert region.
 */
export function submitting(form: HTMLFormElement, action: () => Promise<void>, toFields?: FieldErrors) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')
    if (button) button.disabled = true
    clearFieldErrors(form)
    clearNotes()
    try {
      await action()
    } catch (error) {
      const shown = error instanceof ApiFailure && toFields ? showFieldErrors(form, toFields(error)) : false
      if (!shown) fail(error)
    } finally {
      if (button) button.disabled = false
    }
  })
}

export const fmtDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—'
export const fmtDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
export const fmtPct = (share: number | null | undefined, digits = 1) =>
  share === null || share === undefined ? '—' : `${(share * 100).toFixed(digits)} %`
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

export const VERDICT_WORDS: Record<string, string> = {
  human_verified: 'human verified',
  suspicious: 'suspicious',
  bot: 'bot',
  insufficient_data: 'insufficient data',
}

export function verdictBadge(verdict: string | null): HTMLElement {
  if (!verdict) return h('span', { class: 'badge badge-unscored' }, 'not scored yet')
  return h('span', { class: `badge badge-${verdict}` }, VERDICT_WORDS[verdict] ?? verdict)
}

/** A table whose cells carry their column name, so narrow screens can show each row as a card. */
export function table(caption: string, columns: string[], rows: Child[][], attrs: Attrs = {}): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'cards', ...attrs },
      h('caption', { class: 'sr-only' }, caption),
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        ...rows.map((cells) =>
          h('tr', {}, ...cells.map((cell, i) => (i === 0 ? h('th', { scope: 'row' }, cell) : h('td', { 'data-label': columns[i] }, cell))))
        )
      )
    )
  )
}
