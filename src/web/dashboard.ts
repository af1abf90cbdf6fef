// The /dashboard page: sign-up and sign-in with the e-mailed code, then the signed-in views
// (overview, sessions, accuracy, keys, support) switched by the URL's hash.
// Plain DOM; every text goes in through textContent, never innerHTML.
import { accuracyView } from './accuracy'
import * as api from './api'
import { $, clearNotes, detailsByField, field, h, say, submitting, value } from './dom'
import { keysView } from './keys'
import { overviewView } from './overview'
import { sessionsView, sessionView } from './sessions'
import { supportView } from './support'

const app = () => $('app')

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
    submitting(
      form,
      async () => {
        const email = value(form, 'email')
        const challenge = await api.login({ email, password: value(form, 'password') })
        showCode(challenge, email)
      },
      (error) =>
        error.code === 'invalid_credentials'
          ? new Map([['password', ['The e-mail or the password is wrong. Check both and try again.']]])
          : detailsByField(error, { email: 'email', password: 'password' })
    )
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
    submitting(
      form,
      async () => {
        const email = value(form, 'email')
        const name = value(form, 'name')
        const challenge = await api.register({
          email,
          password: value(form, 'password'),
          organization_name: value(form, 'organization_name'),
          ...(name ? { name } : {}),
        })
        showCode(challenge, email)
      },
      (error) => detailsByField(error, { email: 'email', password: 'password', organization_name: 'organization_name', name: 'name' })
    )
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
  submitting(
    form,
    async () => {
      await api.verifyOtp(challenge.challenge_id, value(form, 'code'))
      say('Signed in.')
    },
    (error) =>
      // Retrying works: a challenge takes up to 5 wrong codes within its 10 minutes.
      new Map(
        error.code === 'invalid_otp'
          ? [
              [
                'code',
                [
                  'This code is wrong or has expired. Check the e-mail and type it again; after 5 wrong tries, or after 10 minutes, choose “Start over” for a new code.',
                ],
              ],
            ]
          : [...detailsByField(error, { code: 'code', challenge_id: 'code' })]
      )
  )
  app().replaceChildren(h('h1', {}, 'Dashboard'), form)
  form.querySelector<HTMLInputElement>('#code')?.focus()
}

// ── Signed in ─────────────────────────────────────────────────────────────

let current: api.TokenPair | null = null

const TABS: [string, string][] = [
  ['overview', 'Overview'],
  ['sessions', 'Sessions'],
  ['accuracy', 'Accuracy'],
  ['keys', 'Keys'],
  ['support', 'Support'],
]

function showApp(pair: api.TokenPair) {
  current = pair
  $('who').textContent = `${pair.user.email} · ${pair.organization.name}`
  $('sign-out').hidden = false
  app().classList.add('wide-view')
  app().replaceChildren(
    h('h1', {}, pair.organization.name),
    h('nav', { class: 'tabs', 'aria-label': 'Dashboard' }, ...TABS.map(([id, label]) => h('a', { href: `#${id}`, 'data-tab': id }, label))),
    h('div', { id: 'view' })
  )
  route()
}

/** The view named by the hash: #overview, #sessions, #session/<id>, #accuracy, #keys, #support. */
function route() {
  if (!current) return
  const [name = 'overview', arg] = location.hash.replace(/^#/, '').split('/')
  const role = current.organization.role
  const tab = name === 'session' ? 'sessions' : name
  for (const a of document.querySelectorAll<HTMLElement>('[data-tab]')) {
    if (a.dataset.tab === tab) a.setAttribute('aria-current', 'page')
    else a.removeAttribute('aria-current')
  }
  const view =
    name === 'session' && arg
      ? sessionView(decodeURIComponent(arg))
      : name === 'sessions'
        ? sessionsView()
        : name === 'accuracy'
          ? accuracyView(role)
          : name === 'keys'
            ? keysView(role)
            : name === 'support'
              ? supportView(role)
              : overviewView()
  $('view').replaceChildren(view)
}

addEventListener('hashchange', () => {
  clearNotes()
  route()
})

// ── Start ────────────────────────────────────────────────────────────────

api.onSessionChange((pair) => {
  if (pair && pair.user.user_id !== current?.user.user_id) showApp(pair)
  else if (pair) current = pair
  else if (current) {
    current = null
    app().classList.remove('wide-view')
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
