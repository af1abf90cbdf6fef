import { Elysia } from 'elysia'
import { API_VERSION } from '../platform/contract'
import { ApiError, type ErrorCode, errorBody, isDatabaseUnavailable, issuesToDetails } from '../platform/errors'
import type { Logger } from '../platform/log'
import { requestId } from './context'

/** Every error, thrown anywhere, leaves as the contract's envelope `{ error: { code, message, request_id } }`. */
export function errorEnvelope(log: Logger, methodsFor: (path: string) => string[] = () => []) {
  return new Elysia({ name: 'http-error-envelope' }).onError({ as: 'global' }, ({ code, error: thrown, request, set, path }) => {
    let error: unknown = thrown
    const id = requestId(request)
    const reply = (
      status: number,
      code: ErrorCode,
      message: string,
      details?: { path: string; message: string }[],
      headers?: Record<string, string>
    ) => {
      set.status = status
      set.headers['content-type'] = 'application/json'
      set.headers['x-request-id'] = id
      set.headers['x-api-version'] = API_VERSION
      if (headers) Object.assign(set.headers, headers)
      return errorBody(code, message, id, details)
    }
    // Errors thrown while parsing arrive wrapped in Elysia's ParseError.
    const cause = code === 'PARSE' ? (error as Error).cause : undefined
    if (cause instanceof ApiError) error = cause
    if (error instanceof ApiError) return reply(error.status, error.code, error.message, error.details, error.headers)
    if (code === 'VALIDATION') {
      const validator = (error as any).validator
      const standard = validator?.['~standard'] ?? validator?.schema?.['~standard']
      const issues = standard ? (standard.validate((error as any).value).issues ?? []) : []
      const details = issuesToDetails(issues)
      return reply(
        400,
        'validation_failed',
        details[0] ? `${details[0].path}: ${details[0].message}` : 'request failed validation',
        details
      )
    }
    if (code === 'PARSE') return reply(400, 'invalid_json', 'request body is not valid JSON')
    if (code === 'NOT_FOUND') {
      const allow = methodsFor(path)
      if (allow.length > 0) {
        return reply(405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${allow.join(', ')}`, undefined, {
          allow: allow.join(', '),
        })
      }
      return reply(404, 'not_found', `no route for ${request.method} ${path}`)
    }
    if (isDatabaseUnavailable(error)) {
      log.warn('database unavailable', { request_id: id, error: String((error as Error).message ?? error) })
      return reply(503, 'unavailable', 'the service is temporarily unavailable, retry later', undefined, { 'retry-after': '5' })
    }
    log.error('unhandled error', {
      request_id: id,
      path,
      error: String((error as Error)?.message ?? error),
      stack: (error as Error)?.stack,
    })
    return reply(500, 'internal', 'internal error')
  })
}
