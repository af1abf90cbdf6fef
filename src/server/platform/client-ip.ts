/**
 * The caller's IP: the socket address, or the left-most X-Forwarded-For entry only when
 * TRUST_PROXY=true (otherwise any client could pick its own rate-limit bucket).
 */
export function clientIp(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean
): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  return server?.requestIP(request)?.address ?? 'unknown'
}
