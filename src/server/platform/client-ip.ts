import { BlockList, isIP } from 'node:net'

/**
 * Which hops in front of the server are trusted to append the caller's address to X-Forwarded-For:
 * - `{ hops: 0 }`: none; the socket address is the client (the default);
 * - `{ hops: n }`: the n nearest hops are our proxies (`TRUST_PROXY=true` means 1);
 * - `{ proxies: [...] }`: any hop whose address is in these IPs/CIDRs is ours.
 */
export type TrustProxy = { hops: number } | { proxies: string[] }

export const MAX_PROXY_HOPS = 16

const CIDR = /^([0-9a-fA-F:.]+)(?:\/(\d{1,3}))?$/

function subnet(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const m = CIDR.exec(entry)
  if (!m) return null
  const version = isIP(m[1]!)
  if (!version) return null
  const max = version === 4 ? 32 : 128
  const prefix = m[2] === undefined ? max : Number(m[2])
  if (prefix > max) return null
  return { address: m[1]!, prefix, family: version === 4 ? 'ipv4' : 'ipv6' }
}

/**
 * TRUST_PROXY: `false`/`0`/`no`, `true`/`yes` (one hop), a hop count `1`…`16`, or a comma-separated
 * list of proxy IPs/CIDRs (`10.0.0.0/8, 127.0.0.1, ::1`). Returns the setting or the reason it is bad.
 */
export function parseTrustProxy(value: string): TrustProxy | { error: string } {
  const s = value.trim().toLowerCase()
  if (s === 'false' || s === 'no') return { hops: 0 }
  if (s === 'true' || s === 'yes') return { hops: 1 }
  if (/^\d+$/.test(s)) {
    const hops = Number(s)
    if (hops > MAX_PROXY_HOPS) return { error: `a hop count must be 0–${MAX_PROXY_HOPS}` }
    return { hops }
  }
  const entries = s.split(',').map((e) => e.trim())
  const bad = entries.find((e) => !subnet(e))
  if (bad !== undefined)
    return { error: 'must be true, false, a hop count, or a comma-separated list of proxy IPs/CIDRs (e.g. 10.0.0.0/8)' }
  return { proxies: entries }
}

const blockLists = new WeakMap<object, BlockList>()

function trustedList(trust: { proxies: string[] }): BlockList {
  let list = blockLists.get(trust)
  if (!list) {
    list = new BlockList()
    for (const entry of trust.proxies) {
      const s = subnet(entry)!
      list.addSubnet(s.address, s.prefix, s.family)
    }
    blockLists.set(trust, list)
  }
  return list
}

function isTrusted(list: BlockList, address: string): boolean {
  const version = isIP(address)
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6')
}

/**
 * The caller's IP, read from the right as Express's `trust proxy` does: the chain is the socket
 * address, then the X-Forwarded-For entries from right to left. Each trusted proxy appends the
 * address it received from, so the client is the first untrusted hop. Entries further left were
 * written by the client itself and are never used (taking the left-most one let any client pick
 * its own rate-limit bucket).
 */
export function clientIp(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  trust: TrustProxy
): string {
  const socket = server?.requestIP(request)?.address ?? 'unknown'
  if ('hops' in trust && trust.hops === 0) return socket
  const forwarded = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const chain = [socket, ...forwarded.reverse()]
  // With fewer hops than configured, the furthest address is the best there is (as in Express).
  if ('hops' in trust) return chain[Math.min(trust.hops, chain.length - 1)]!
  const list = trustedList(trust)
  for (const hop of chain) if (!isTrusted(list, hop)) return hop
  return chain[chain.length - 1]!
}
