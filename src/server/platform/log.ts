type Level = 'debug' | 'info' | 'warn' | 'error'
const ORDER: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

// Defence in depth: even if a caller logs something it should not, these shapes never reach the output.
const SECRET_PATTERNS: RegExp[] = [
  /svc_live_sk_[A-Za-z0-9]+/g,
  /svc_live_pk_[A-Za-z0-9]+/g,
  /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
  /\brt_[A-Za-z0-9]{16,}/g,
]

export function redact(text: string): string {
  let out = text
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]')
  return out
}

export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

export function createLogger(level: Level | 'silent', write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Logger {
  const min = ORDER[level]
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return
    write(redact(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })))
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  }
}
