// The /dashboard page: sign-up and sign-in with the e-mailed code, plan usage, API keys, support.
// Plain DOM; every text goes in through textContent, never innerHTML.
import * as api from './api'

type Usage = {
  planId: string
  displayName: string
  sessionsUsed: number
  sessionsLimit: number
  percentUsed: number
  periodStart: string
  periodEnd: string
}
type Key = {
  keyPairId: string
  name: string
  sdkType: 'WEB' | 'IOS' | 'ANDROID' | 'SERVER'
  publicKey: string
  secretKey?: string | null
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  allowedOrigins: string[]
}

const KEY_FIELDS = 'keyPairId name sdkType publicKey createdAt lastUsedAt revokedAt allowedOrigins'

type Attrs = Record<string, string | boolean | number | undefined | ((e: Event) => void)>
type Child = Node | string | null | undefined | false

function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value)
    else if (value === true) node.setAttribute(name, '')
    else node.setAttribute(name, String(value))
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child)
  return node
}

const $ = (id: string) => document.getElementById(id)!
const app = () => $('app')

let messageTimer: ReturnType<typeof setTimeout> | undefined

function say(text: string) {
  $('errors').textContent = ''
  const box = $('messages')
  box.textContent = text
  clearTimeout(messageTimer)
  messageTimer = setTimeout(() => (box.textContent = ''), 8000)
}

function fail(error: unknown) {
  $('messages').textContent = ''
  $('errors').textContent = error instanceof api.ApiFailure ? error.message : 'Something went wrong. Please try again.'
}

function clearNotes() {
  $('messages').textContent = ''
  $('errors').textContent = ''
}

function field(id: string, label: string, input: Attrs, hint?: string): HTMLElement {
  const hintId = hint ? `${id}-hint` : undefined
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, ...input, 'aria-describedby': hintId }),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null
  )
}

function value(form: HTMLFormElement, name: string): string {
  return ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim()
}

/** Runs a form's action with its submit button disabled, reporting failures in the alert region. */
function submitting(form: HTMLFormElement, action: () => Promise<void>) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')
    if (button) button.disabled = true
    try {
      await action()
    } catch (error) {
      fail(error)
    } finally {
      if (button) button.disabled = false
    }
  })
}

const fmtDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—')
const fmtDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })

// ── Signed out ────────────────────────────────────────────────────────────

function showAuth(mode: 'login' | 'register' = 'login') {
  $('who').textContent = ''
  $('sign-out').hidden = true
  const toggle = (m: 'login' | 'register', label: string) =>
    h('button', { type: 'button', 'aria-pressed': String(mode === m), onclick: () => showAuth(m) }, label)

  const form = h('form', { id: `${mode}-form`, class: 'card', novalidate: false }) as HTMLFormElement
  if (mode === 'login') {
    form.append(
      h('h2', {}, 'Sign in'),
      field('email', 'E-mail', { type: 'email', required: true, autocomplete: 'username' }),
      field('password', 'Password', { type: 'password', required: true, autocomplete: 'current-password' }),
      h('button', { type: 'submit', class: 'primary' }, 'Sign in')
    )
    submitting(form, async () => {
      const email = value(form, 'email')
      const challenge = await api.login({ email, password: value(form, 'password') })
      showCode(challenge, email)
    })
  } else {
    form.append(
      h('h2', {}, 'Create an account'),
      field('organization_name', 'Organization', { type: 'text', required: true, autocomplete: 'organization', maxlength: 200 }),
      field('name', 'Your name (optional)', { type: 'text', autocomplete: 'name', maxlength: 200 }),
      field('email', 'E-mail', { type: 'email', required: true, autocomplete: 'email' }),
      field(
        'password',
        'Password',
        { type: 'password', required: true, minlength: 10, autocomplete: 'new-password' },
        'At least 10 characters.'
      ),
      h('button', { type: 'submit', class: 'primary' }, 'Create account')
    )
    submitting(form, async () => {
      const email = value(form, 'email')
      const name = value(form, 'name')
      const challenge = await api.register({
        email,
        password: value(form, 'password'),
        organization_name: value(form, 'organization_name'),
        ...(name ? { name } : {}),
      })
      showCode(challenge, email)
    })
  }
  app().replaceChildren(
    h('h1', {}, 'Dashboard'),
    h('div', { class: 'switch', role: 'group', 'aria-label': 'Account' }, toggle('login', 'Sign in'), toggle('register', 'Create account')),
    form
  )
  form.querySelector<HTMLInputElement>('input')?.focus()
}

function showCode(challenge: api.Challenge, email: string) {
  clearNotes()
  const form = h(
    'form',
    { id: 'code-form', class: 'card' },
    h('h2', {}, 'Enter your code'),
    h('p', {}, `We sent a 6-digit code to ${email}. It is valid for 10 minutes.`),
    field('code', 'Code', {
      type: 'text',
      inputmode: 'numeric',
      pattern: '[0-9]{6}',
      maxlength: 6,
      required: true,
      autocomplete: 'one-time-code',
    }),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'primary' }, 'Verify'),
      h('button', { type: 'button', onclick: () => showAuth('login') }, 'Start over')
    )
  ) as HTMLFormElement
  submitting(form, async () => {
    await api.verifyOtp(challenge.challenge_id, value(form, 'code'))
    say('Signed in.')
  })
  app().replaceChildren(h('h1', {}, 'Dashboard'), form)
  form.querySelector<HTMLInputElement>('#code')?.focus()
}

// ── Signed in ─────────────────────────────────────────────────────────────

let current: api.TokenPair | null = null

function showApp(pair: api.TokenPair) {
  current = pair
  $('who').textContent = `${pair.user.email} · ${pair.organization.name}`
  $('sign-out').hidden = false
  const canManage = pair.organization.role !== 'member'
  app().replaceChildren(
    h('h1', {}, pair.organization.name),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-title' },
      h('h2', { id: 'usage-title' }, 'Plan usage'),
      h('div', { id: 'usage' }, h('p', {}, 'Loading…')),
      h('button', { type: 'button', onclick: () => void loadUsage() }, 'Refresh')
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'keys-title' },
      h('h2', { id: 'keys-title' }, 'API keys'),
      h('div', { id: 'secret' }),
      h('div', { id: 'keys' }, h('p', {}, 'Loading…')),
      canManage ? createKeyForm() : h('p', { class: 'hint' }, 'Only owners and admins can create, rotate or revoke keys.')
    ),
    h('section', { class: 'card', 'aria-labelledby': 'support-title' }, h('h2', { id: 'support-title' }, 'Support'), ticketForm())
  )
  void loadUsage()
  void loadKeys()
}

async function loadUsage() {
  const box = $('usage')
  try {
    const { getPlanUsage: u } = await api.graphql<{ getPlanUsage: Usage }>(
      'query { getPlanUsage { planId displayName sessionsUsed sessionsLimit percentUsed periodStart periodEnd } }'
    )
    const pct = Math.min(100, Math.max(0, u.percentUsed))
    const bar = h('progress', { id: 'usage-bar', max: 100, value: pct, 'aria-labelledby': 'usage-text' })
    if (pct >= 90) bar.classList.add('high')
    box.replaceChildren(
      h(
        'p',
        { id: 'usage-text' },
        h('strong', {}, `${u.displayName} plan: `),
        `${u.sessionsUsed.toLocaleString()} of ${u.sessionsLimit.toLocaleString()} sessions used (${u.percentUsed.toFixed(1)}%)`
      ),
      bar,
      h('p', { class: 'hint' }, `Billing period ${fmtDay(u.periodStart)} – ${fmtDay(u.periodEnd)} (UTC).`)
    )
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Usage is not available right now.'))
    fail(error)
  }
}

/** listApiKeys answers at most this many per call; a full page means there may be more. */
const KEY_PAGE = 100

async function keyPage(after: string | null): Promise<Key[]> {
  const { listApiKeys } = await api.graphql<{ listApiKeys: Key[] }>(
    `query Keys($first: Int, $after: ID) { listApiKeys(first: $first, after: $after) { ${KEY_FIELDS} } }`,
    { first: KEY_PAGE, after }
  )
  return listApiKeys
}

async function loadKeys() {
  const box = $('keys')
  try {
    const keys = await keyPage(null)
    box.replaceChildren(keysTable(keys), moreKeysButton(keys, keys.length))
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Keys are not available right now.'))
    fail(error)
  }
}

/** The next page, oldest first like the first one (cursor: the last keyPairId shown). */
function moreKeysButton(shown: Key[], lastPage: number): HTMLElement | string {
  if (lastPage < KEY_PAGE) return ''
  return h(
    'button',
    {
      type: 'button',
      id: 'more-keys',
      onclick: async () => {
        try {
          const next = await keyPage(shown[shown.length - 1]!.keyPairId)
          const all = [...shown, ...next]
          $('keys').replaceChildren(keysTable(all), moreKeysButton(all, next.length))
        } catch (error) {
          fail(error)
        }
      },
    },
    'Show more keys'
  )
}

function keysTable(keys: Key[]): HTMLElement {
  if (keys.length === 0) return h('p', {}, 'No keys yet.')
  const canManage = current?.organization.role !== 'member'
  const rows = keys.map((k) =>
    h(
      'tr',
      { 'data-key-id': k.keyPairId, class: k.revokedAt ? 'revoked' : '' },
      h('th', { scope: 'row' }, k.name),
      h('td', {}, k.sdkType.toLowerCase()),
      h('td', {}, h('code', { class: 'public-key' }, k.publicKey)),
      h('td', {}, fmtDate(k.createdAt)),
      h('td', {}, fmtDate(k.lastUsedAt)),
      h('td', { class: 'status' }, k.revokedAt ? `Revoked ${fmtDate(k.revokedAt)}` : 'Active'),
      h(
        'td',
        {},
        !k.revokedAt && canManage
          ? h(
              'div',
              { class: 'row' },
              h('button', { type: 'button', 'aria-label': `Rotate ${k.name}`, onclick: () => void rotateKey(k) }, 'Rotate'),
              h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${k.name}`, onclick: () => void revokeKey(k) }, 'Revoke')
            )
          : null
      )
    )
  )
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'sr-only' }, 'API key pairs'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Name', 'Type', 'Public key', 'Created', 'Last used', 'Status', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))
      ),
      h('tbody', {}, ...rows)
    )
  )
}

function createKeyForm(): HTMLElement {
  const form = h(
    'form',
    { id: 'create-key-form', class: 'inline-form' },
    h('h3', {}, 'Create a key pair'),
    field('key-name', 'Name', { type: 'text', required: true, maxlength: 100, placeholder: 'e.g. Production web' }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'key-type' }, 'SDK type'),
      h(
        'select',
        { id: 'key-type', name: 'key-type' },
        ...['WEB', 'IOS', 'ANDROID', 'SERVER'].map((t) => h('option', { value: t }, t.toLowerCase()))
      )
    ),
    field(
      'key-origins',
      'Allowed origins (optional)',
      { type: 'text', placeholder: 'https://shop.example.com' },
      'Comma-separated. When set, the public key only works from these origins.'
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Create key')
  ) as HTMLFormElement
  submitting(form, async () => {
    const origins = value(form, 'key-origins')
      .split(/[\s,]+/)
      .filter(Boolean)
    const { createApiKey } = await api.graphql<{ createApiKey: Key }>(
      `mutation Create($name: String!, $sdkType: SdkType!, $origins: [String!]) {
         createApiKey(name: $name, sdkType: $sdkType, allowedOrigins: $origins) { ${KEY_FIELDS} secretKey } }`,
      { name: value(form, 'key-name'), sdkType: value(form, 'key-type'), origins: origins.length ? origins : null }
    )
    form.reset()
    showSecret(createApiKey, 'created')
    await loadKeys()
  })
  return form
}

async function rotateKey(k: Key) {
  if (!confirm(`Rotate "${k.name}"? Its current secret key stops working.`)) return
  try {
    const { rotateApiKey } = await api.graphql<{ rotateApiKey: Key }>(
      `mutation Rotate($id: ID!) { rotateApiKey(keyPairId: $id) { ${KEY_FIELDS} secretKey } }`,
      { id: k.keyPairId }
    )
    showSecret(rotateApiKey, 'rotated')
    await loadKeys()
  } catch (error) {
    fail(error)
  }
}

async function revokeKey(k: Key) {
  if (!confirm(`Revoke "${k.name}"? Both its keys stop working within seconds. This cannot be undone.`)) return
  try {
    await api.graphql(`mutation Revoke($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId revokedAt } }`, { id: k.keyPairId })
    say(`Key "${k.name}" revoked.`)
    await loadKeys()
  } catch (error) {
    fail(error)
  }
}

/** The only time a secret key is ever visible: it is kept in this DOM node and nowhere else. */
function showSecret(k: Key, action: 'created' | 'rotated') {
  if (!k.secretKey) return
  const secret = k.secretKey
  const copy = h(
    'button',
    {
      type: 'button',
      id: 'copy-secret',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(secret)
          say('Secret key copied to the clipboard.')
        } catch {
          const range = document.createRange()
          range.selectNodeContents($('secret-value'))
          getSelection()?.removeAllRanges()
          getSelection()?.addRange(range)
          say('Copying is not allowed here: the key is selected, press Ctrl+C.')
        }
      },
    },
    'Copy'
  )
  const panel = h(
    'div',
    { class: 'secret', role: 'region', 'aria-labelledby': 'secret-title' },
    h('h3', { id: 'secret-title', tabindex: -1 }, `Secret key for "${k.name}" (${action})`),
    h('p', {}, 'Copy it now and store it in your backend’s secret manager. It is shown only once and cannot be recovered.'),
    h('div', { class: 'row' }, h('code', { id: 'secret-value', class: 'secret-value' }, secret), copy),
    h('button', { type: 'button', onclick: () => $('secret').replaceChildren() }, 'I have stored it')
  )
  $('secret').replaceChildren(panel)
  say(`Key "${k.name}" ${action}. Copy the secret key now: it is shown only once.`)
  ;(panel.querySelector('#secret-title') as HTMLElement).focus()
}

function ticketForm(): HTMLElement {
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
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'ticket-message' }, 'Message'),
      h('textarea', { id: 'ticket-message', name: 'ticket-message', required: true, maxlength: 10000, rows: 5 })
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Send to support')
  ) as HTMLFormElement
  submitting(form, async () => {
    const ticket = await api.openTicket({
      subject: value(form, 'ticket-subject'),
      message: value(form, 'ticket-message'),
      priority: value(form, 'ticket-priority'),
    })
    form.reset()
    say(`Ticket ${ticket.ticket_id} opened (${ticket.priority} priority). We will answer by e-mail.`)
  })
  return form
}

// ── Start ────────────────────────────────────────────────────────────────

api.onSessionChange((pair) => {
  if (pair && pair.user.user_id !== current?.user.user_id) showApp(pair)
  else if (pair) current = pair
  else if (current) {
    current = null
    showAuth('login')
  }
})

async function start() {
  $('sign-out').addEventListener('click', async () => {
    await api.logout()
    say('Signed out.')
  })
  app().replaceChildren(h('p', {}, 'Loading…'))
  const pair = await api.resume()
  if (!pair) showAuth('login')
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start())
else void start()
