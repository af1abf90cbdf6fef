// The "Keys" view: key pairs with their install snippet, allowed origins (editable), rotation with a
// grace period, revocation. A secret key is shown once, in #secret, and nowhere else.
import * as api from './api'
import { $, type Attrs, detailsByField, field, fail, fmtDate, h, say, submitting, value } from './dom'

export type Key = {
  keyPairId: string
  name: string
  sdkType: 'WEB' | 'IOS' | 'ANDROID' | 'SERVER'
  publicKey: string
  secretKey?: string | null
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  allowedOrigins: string[]
  previousSecretExpiresAt: string | null
}

const KEY_FIELDS = 'keyPairId name sdkType publicKey createdAt lastUsedAt revokedAt allowedOrigins previousSecretExpiresAt'

/** listApiKeys answers at most this many per call; a full page means there may be more. */
const KEY_PAGE = 100

const GRACE_CHOICES: [number, string][] = [
  [0, 'None: the old secret stops now'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
]

let canManage = false
let shown: Key[] = []

export function keysView(role: api.Organization['role']): HTMLElement {
  canManage = role !== 'member'
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'keys-title' },
    h('h2', { id: 'keys-title' }, 'API keys'),
    h('div', { id: 'secret' }),
    h('div', { id: 'keys' }, h('p', {}, 'Loading…')),
    h('div', { id: 'key-panel' }),
    canManage ? createKeyForm() : h('p', { class: 'hint' }, 'Only owners and admins can create, change, rotate or revoke keys.'),
    rotateDialog()
  )
  queueMicrotask(() => void loadKeys())
  return section
}

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
    // Pages beyond the first stay shown after a change (the list is oldest first).
    let all = keys
    let last = keys.length
    while (shown.length > all.length && last === KEY_PAGE) {
      const next = await keyPage(all[all.length - 1]!.keyPairId)
      all = [...all, ...next]
      last = next.length
    }
    render(all, last)
  } catch (error) {
    box.replaceChildren(h('p', {}, 'Keys are not available right now.'))
    fail(error)
  }
}

function render(keys: Key[], lastPage: number) {
  shown = keys
  $('keys').replaceChildren(keysTable(keys), moreKeysButton(lastPage))
  const open = $('key-panel').dataset.keyId
  const still = keys.find((k) => k.keyPairId === open)
  if (open && still) showKeyPanel(still, false)
  else if (open) $('key-panel').replaceChildren()
}

/** The next page, oldest first like the first one (cursor: the last keyPairId shown). */
function moreKeysButton(lastPage: number): HTMLElement | string {
  if (lastPage < KEY_PAGE) return ''
  return h(
    'button',
    {
      type: 'button',
      id: 'more-keys',
      onclick: async () => {
        try {
          const next = await keyPage(shown[shown.length - 1]!.keyPairId)
          render([...shown, ...next], next.length)
        } catch (error) {
          fail(error)
        }
      },
    },
    'Show more keys'
  )
}

function status(k: Key): string {
  if (k.revokedAt) return `Revoked ${fmtDate(k.revokedAt)}`
  if (k.previousSecretExpiresAt) return `Active · old secret works until ${fmtDate(k.previousSecretExpiresAt)}`
  return 'Active'
}

function keysTable(keys: Key[]): HTMLElement {
  if (keys.length === 0) return h('p', {}, 'No keys yet.')
  const columns = ['Name', 'Type', 'Public key', 'Allowed origins', 'Created', 'Last used', 'Status', 'Actions']
  const cell = (i: number, ...children: (Node | string | null)[]) => h('td', { 'data-label': columns[i] }, ...children)
  const rows = keys.map((k) =>
    h(
      'tr',
      { 'data-key-id': k.keyPairId, class: k.revokedAt ? 'revoked' : '' },
      h('th', { scope: 'row' }, k.name),
      cell(1, k.sdkType.toLowerCase()),
      cell(2, h('code', { class: 'public-key' }, k.publicKey)),
      cell(3, h('span', { class: 'origins' }, k.allowedOrigins.length ? k.allowedOrigins.join(', ') : 'any origin')),
      cell(4, fmtDate(k.createdAt)),
      cell(5, fmtDate(k.lastUsedAt)),
      h('td', { 'data-label': columns[6], class: 'status' }, status(k)),
      cell(
        7,
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', 'aria-label': `Set up ${k.name}`, onclick: () => showKeyPanel(k, true) }, 'Set up'),
          !k.revokedAt && canManage
            ? h('button', { type: 'button', 'aria-label': `Rotate ${k.name}`, onclick: () => openRotate(k) }, 'Rotate')
            : null,
          !k.revokedAt && canManage
            ? h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${k.name}`, onclick: () => void revokeKey(k) }, 'Revoke')
            : null
        )
      )
    )
  )
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'cards', id: 'keys-table' },
      h('caption', { class: 'sr-only' }, 'API key pairs'),
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows)
    )
  )
}

/** What a developer pastes: the SDK from this service with the key's public key, and the verdict call from their backend. */
export function installSnippet(
  k: Pick<Key, 'publicKey' | 'sdkType'>,
  origin = location.origin
): { browser: string | null; backend: string } {
  const browser =
    k.sdkType === 'WEB'
      ? `<script src="${origin}/sdk/v1.js"></script>\n<script>\n  const bss = BSS.init({ publicKey: '${k.publicKey}', endpoint: '${origin}' })\n  // Send bss.sessionId to your backend with the form or request you want to check.\n</script>`
      : null
  const backend = `curl -H "X-API-Key: $BSS_SECRET_KEY" ${origin}/v1/session/<session id>`
  return { browser, backend }
}

function copyButton(label: string, text: () => string): HTMLElement {
  return h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(text())
          say(`${label} copied to the clipboard.`)
        } catch {
          say('Copying is not allowed here: select the text and press Ctrl+C.')
        }
      },
    },
    `Copy ${label.toLowerCase()}`
  )
}

function showKeyPanel(k: Key, focus: boolean) {
  const panel = $('key-panel')
  panel.dataset.keyId = k.keyPairId
  const snippet = installSnippet(k)
  const parts: (Node | null)[] = [
    h('h3', { id: 'key-panel-title', tabindex: -1 }, `Set up "${k.name}"`),
    snippet.browser
      ? h(
          'div',
          {},
          h('p', {}, 'On every page you want scored, before your own scripts:'),
          h('pre', { class: 'snippet', id: 'install-snippet' }, h('code', {}, snippet.browser)),
          copyButton('Snippet', () => snippet.browser!)
        )
      : h('p', {}, `A ${k.sdkType.toLowerCase()} key: send batches to ${location.origin}/v1/ingest with its public key.`),
    h(
      'div',
      {},
      h('p', {}, 'Your backend then asks for the verdict with the secret key (never put it in a page):'),
      h('pre', { class: 'snippet', id: 'verdict-snippet' }, h('code', {}, snippet.backend))
    ),
    k.revokedAt ? h('p', { class: 'hint' }, 'This key pair is revoked: both its keys are refused.') : originsForm(k),
  ]
  panel.replaceChildren(h('div', { class: 'key-panel' }, ...parts))
  if (focus) ($('key-panel-title') as HTMLElement).focus()
}

function originsForm(k: Key): HTMLElement {
  const attrs: Attrs = { rows: 3, disabled: !canManage, spellcheck: 'false' }
  const form = h(
    'form',
    { id: 'origins-form' },
    field(
      'origins-edit',
      'Allowed origins',
      attrs,
      'One per line, like https://shop.example.com. Empty: the public key works from any origin.',
      'textarea'
    ),
    canManage ? h('button', { type: 'submit', class: 'primary' }, 'Save origins') : null
  ) as HTMLFormElement
  ;(form.querySelector('#origins-edit') as HTMLTextAreaElement).value = k.allowedOrigins.join('\n')
  submitting(
    form,
    async () => {
      const origins = splitOrigins(value(form, 'origins-edit'))
      const { updateApiKeyOrigins } = await api.graphql<{ updateApiKeyOrigins: Key }>(
        `mutation Origins($id: ID!, $origins: [String!]!) { updateApiKeyOrigins(keyPairId: $id, allowedOrigins: $origins) { ${KEY_FIELDS} } }`,
        { id: k.keyPairId, origins }
      )
      say(
        updateApiKeyOrigins.allowedOrigins.length
          ? `"${k.name}" now works from ${updateApiKeyOrigins.allowedOrigins.join(', ')}.`
          : `"${k.name}" now works from any origin.`
      )
      await loadKeys()
    },
    (error) => detailsByField(error, { allowedOrigins: 'origins-edit' })
  )
  return form
}

const splitOrigins = (text: string) => text.split(/[\s,]+/).filter(Boolean)

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
  submitting(
    form,
    async () => {
      const origins = splitOrigins(value(form, 'key-origins'))
      const { createApiKey } = await api.graphql<{ createApiKey: Key }>(
        `mutation Create($name: String!, $sdkType: SdkType!, $origins: [String!]) {
         createApiKey(name: $name, sdkType: $sdkType, allowedOrigins: $origins) { ${KEY_FIELDS} secretKey } }`,
        { name: value(form, 'key-name'), sdkType: value(form, 'key-type'), origins: origins.length ? origins : null }
      )
      form.reset()
      shown = [...shown, createApiKey]
      showSecret(createApiKey, 'created')
      await loadKeys()
      showKeyPanel(createApiKey, false)
    },
    (error) => detailsByField(error, { name: 'key-name', allowedOrigins: 'key-origins' })
  )
  return form
}

function rotateDialog(): HTMLElement {
  const form = h(
    'form',
    { method: 'dialog', id: 'rotate-form' },
    h('h3', { id: 'rotate-title' }, 'Rotate the secret key'),
    h('p', { id: 'rotate-text' }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'rotate-grace' }, 'Keep the old secret working for'),
      h('select', { id: 'rotate-grace', name: 'rotate-grace' }, ...GRACE_CHOICES.map(([s, label]) => h('option', { value: s }, label)))
    ),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'primary', value: 'rotate' }, 'Rotate'),
      h('button', { type: 'submit', value: 'cancel' }, 'Cancel')
    )
  )
  const dialog = h('dialog', { id: 'rotate-dialog', 'aria-labelledby': 'rotate-title' }, form) as HTMLDialogElement
  dialog.addEventListener('close', () => {
    const id = dialog.dataset.keyId
    const k = shown.find((x) => x.keyPairId === id)
    if (dialog.returnValue === 'rotate' && k) void rotateKey(k, Number((form.querySelector('#rotate-grace') as HTMLSelectElement).value))
  })
  return dialog
}

function openRotate(k: Key) {
  const dialog = $('rotate-dialog') as HTMLDialogElement
  dialog.dataset.keyId = k.keyPairId
  dialog.returnValue = ''
  $('rotate-text').textContent =
    `"${k.name}" gets a new secret key, shown once. Your backend needs the new one before the old one stops; the public key stays the same.`
  ;($('rotate-grace') as HTMLSelectElement).value = '0'
  dialog.showModal()
}

async function rotateKey(k: Key, gracePeriodSeconds: number) {
  try {
    const { rotateApiKey } = await api.graphql<{ rotateApiKey: Key }>(
      `mutation Rotate($id: ID!, $grace: Int) { rotateApiKey(keyPairId: $id, gracePeriodSeconds: $grace) { ${KEY_FIELDS} secretKey } }`,
      { id: k.keyPairId, grace: gracePeriodSeconds }
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
    // A revoked key's secret is useless: its panel closes.
    if ($('secret').dataset.keyId === k.keyPairId) closeSecret()
    say(`Key "${k.name}" revoked.`)
    await loadKeys()
  } catch (error) {
    fail(error)
  }
}

function closeSecret() {
  const box = $('secret')
  box.replaceChildren()
  delete box.dataset.keyId
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
  const grace = k.previousSecretExpiresAt ? ` The old secret keeps working until ${fmtDate(k.previousSecretExpiresAt)}.` : ''
  const panel = h(
    'div',
    { class: 'secret', role: 'region', 'aria-labelledby': 'secret-title' },
    h('h3', { id: 'secret-title', tabindex: -1 }, `Secret key for "${k.name}" (${action})`),
    h('p', {}, `Copy it now and store it in your backend’s secret manager. It is shown only once and cannot be recovered.${grace}`),
    h('div', { class: 'row' }, h('code', { id: 'secret-value', class: 'secret-value' }, secret), copy),
    h('button', { type: 'button', onclick: closeSecret }, 'I have stored it')
  )
  const box = $('secret')
  box.dataset.keyId = k.keyPairId
  box.replaceChildren(panel)
  say(`Key "${k.name}" ${action}. Copy the secret key now: it is shown only once.`)
  ;(panel.querySelector('#secret-title') as HTMLElement).focus()
}
