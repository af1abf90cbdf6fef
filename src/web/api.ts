// The dashboard's only way to the service: /auth/*, /graphql, POST /v1/support/tickets and GET /v1/labels/export.
//
// Tokens: the access token lives in memory only; the refresh token in sessionStorage, so a reload
// keeps the tab signed in and closing the tab ends it. Any script on this origin could read
// sessionStorage, which is why the pages run under a CSP that allows no inline or foreign script.

export type User = { user_id: string; email: string; name: string | null }
export type Organization = { org_id: string; name: string; plan_id: string; role: 'owner' | 'admin' | 'member' }
export type TokenPair = { access_token: string; refresh_token: string; expires_in: number; user: User; organization: Organization }
export type Challenge = { status: 'otp_required'; challenge_id: string; expires_at: string }

export type ErrorDetail = { path: string; message: string }

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = []
  ) {
    super(message)
  }
}

const detailsOf = (value: unknown): ErrorDetail[] =>
  Array.isArray(value) ? value.filter((d) => typeof d?.path === 'string' && typeof d?.message === 'string') : []

const REFRESH_KEY = 'bss.dashboard.refresh'

let access: { token: string; expires: number } | null = null
let refreshing: Promise<TokenPair | null> | null = null
let onSession: (pair: TokenPair | null) => void = () => {}

export function onSessionChange(fn: (pair: TokenPair | null) => void) {
  onSession = fn
}

function storedRefresh(): string | null {
  try {
    return sessionStorage.getItem(REFRESH_KEY)
  } catch {
    return null
  }
}

function keep(pair: TokenPair | null) {
  access = pair ? { token: pair.access_token, expires: Date.now() + pair.expires_in * 1000 } : null
  try {
    if (pair) sessionStorage.setItem(REFRESH_KEY, pair.refresh_token)
    else sessionStorage.removeItem(REFRESH_KEY)
  } catch {}
  onSession(pair)
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    credentials: 'omit',
  })
  const text = await res.text()
  let parsed: any = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {}
  return { status: res.status, body: parsed }
}

function failure(status: number, body: any): ApiFailure {
  const error = body?.error
  return new ApiFailure(status, error?.code ?? 'error', error?.message ?? `the service answered ${status}`, detailsOf(error?.details))
}

async function authCall<T>(path: string, body: unknown, expected: number): Promise<T> {
  const res = await post(path, body)
  if (res.status !== expected) throw failure(res.status, res.body)
  return res.body as T
}

export const register = (input: { email: string; password: string; name?: string; organization_name: string }) =>
  authCall<Challenge>('/auth/register', input, 202)

export const login = (input: { email: string; password: string }) => authCall<Challenge>('/auth/login', input, 202)

export async function verifyOtp(challengeId: string, code: string): Promise<TokenPair> {
  const pair = await authCall<TokenPair>('/auth/verify-otp', { challenge_id: challengeId, code }, 200)
  keep(pair)
  return pair
}

/**
 * Trades the stored refresh token for a new pair. Single-flight: refresh tokens rotate on use and a
 * second use of the same one revokes the whole login (theft detection), so parallel calls share one.
 */
export function resume(): Promise<TokenPair | null> {
  if (refreshing) return refreshing
  const token = storedRefresh()
  if (!token) return Promise.resolve(null)
  refreshing = (async () => {
    try {
      const res = await post('/auth/refresh', { refresh_token: token })
      if (res.status !== 200) {
        keep(null)
        return null
      }
      keep(res.body as TokenPair)
      return res.body as TokenPair
    } catch {
      return null
    } finally {
      refreshing = null
    }
  })()
  return refreshing
}

export async function logout(): Promise<void> {
  const token = storedRefresh()
  keep(null)
  if (token) await post('/auth/logout', { refresh_token: token }).catch(() => {})
}

/** Calls with the access token; on 401 refreshes once and retries, then gives up (signed out). */
async function withToken(call: (token: string) => Promise<{ status: number; body: any }>) {
  if (!access || access.expires - Date.now() < 30_000) await resume()
  if (!access) throw new ApiFailure(401, 'unauthorized', 'your session has ended, please sign in again')
  let res = await call(access.token)
  if (res.status === 401) {
    await resume()
    if (!access) throw new ApiFailure(401, 'unauthorized', 'your session has ended, please sign in again')
    res = await call(access.token)
    if (res.status === 401) {
      keep(null)
      throw new ApiFailure(401, 'unauthorized', 'your session has ended, please sign in again')
    }
  }
  return res
}

export async function graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await withToken((token) => post('/graphql', { query, variables }, { authorization: `Bearer ${token}` }))
  const error = res.body?.errors?.[0]
  if (error)
    throw new ApiFailure(
      res.status,
      error.extensions?.code ?? 'error',
      error.message ?? 'the request failed',
      detailsOf(error.extensions?.details)
    )
  if (res.status !== 200 || !res.body?.data) throw failure(res.status, res.body)
  return res.body.data as T
}

/** GET with the access token, the raw response (the labelled-sessions export is a stream, not JSON). */
export async function download(path: string): Promise<Response> {
  let raw: Response | null = null
  const res = await withToken(async (token) => {
    raw = await fetch(path, { headers: { authorization: `Bearer ${token}` }, credentials: 'omit' })
    if (raw.ok) return { status: raw.status, body: null }
    let body: any = null
    try {
      body = await raw.json()
    } catch {}
    return { status: raw.status, body }
  })
  if (res.status !== 200 || !raw) throw failure(res.status, res.body)
  return raw
}

export type Ticket = { ticket_id: string; status: string; subject: string; priority: string; created_at: string }

export async function openTicket(input: { subject: string; message: string; priority: string }): Promise<Ticket> {
  const res = await withToken((token) => post('/v1/support/tickets', input, { authorization: `Bearer ${token}` }))
  if (res.status !== 201) throw failure(res.status, res.body)
  return res.body as Ticket
}
