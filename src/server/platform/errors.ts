/** The contract's closed list of error codes and their HTTP statuses (API.md, "Errors"). */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  invalid_otp: 401,
  forbidden: 403,
  not_found: 404,
  // Not in the contract's list: the path exists, the method does not (answered with Allow; docs/decisions.md).
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  plan_limit_exceeded: 429,
  internal: 500,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export type ErrorDetail = { path: string; message: string }

export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>
  ) {
    super(message)
    this.status = ERROR_STATUS[code]
  }
}

export function errorBody(code: ErrorCode, message: string, requestId: string, details?: ErrorDetail[]) {
  return { error: { code, message, ...(details?.length ? { details } : {}), request_id: requestId } }
}

/** Standard Schema / valibot issues → the contract's details list, paths like `signals[3].k`. */
type Issue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }
export function issuesToDetails(issues: ReadonlyArray<Issue>, max = 20): ErrorDetail[] {
  return issues.slice(0, max).map((issue) => ({ path: formatPath(issue.path), message: withoutReceived(issue.message) }))
}

// valibot's default messages end with "but received <the value>": an error must not echo input back
// (it may be a password, or 100 KB long).
const withoutReceived = (message: string) => message.replace(/ but received [\s\S]*$/, '')

function formatPath(path: Issue['path']): string {
  if (!path || path.length === 0) return 'body'
  let out = ''
  for (const seg of path) {
    const key = typeof seg === 'object' && seg !== null ? (seg as { key: PropertyKey }).key : seg
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  return out
}

/** Postgres/driver failures that mean "the database is not reachable right now" (→ 503, not 500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const e = error as { code?: string; errno?: string; name?: string; message?: string }
  const code = e.code ?? e.errno ?? ''
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      'EHOSTUNREACH',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      'DB_TIMEOUT',
      '57P01',
      '57P02',
      '57P03',
      '53300',
      '08000',
      '08003',
      '08006',
      '08001',
      '08004',
    ].includes(code)
  )
    return true
  return false
}
