import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { clientIp, parseTrustProxy, type TrustProxy } from '../../src/server/platform/client-ip'
import { ConfigError, loadConfig } from '../../src/server/platform/config'
import { createHarness, type Harness } from '../helpers/harness'

// Issue 15, finding 2: with TRUST_PROXY=true the left-most X-Forwarded-For entry, which the client
// writes, was the client IP, so every request could choose a fresh rate-limit bucket.
setDefaultTimeout(60_000)

const socket = (address: string) => ({ requestIP: () => ({ address }) })
const req = (xff?: string) => new Request('http://localhost/', { headers: xff ? { 'x-forwarded-for': xff } : {} })
const ipOf = (trust: TrustProxy, xff: string | undefined, from = '10.0.0.2') => clientIp(req(xff), socket(from), trust)

describe('clientIp reads X-Forwarded-For from the right', () => {
  it('trusts nothing by default: the socket address, whatever the header says', () => {
    expect(ipOf({ hops: 0 }, '1.2.3.4')).toBe('10.0.0.2')
  })

  it('one hop (TRUST_PROXY=true): the entry our proxy appended, never the spoofed ones left of it', () => {
    expect(ipOf({ hops: 1 }, '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7')
    expect(ipOf({ hops: 1 }, '1.1.1.1,2.2.2.2 , 198.51.100.7')).toBe('198.51.100.7')
    expect(ipOf({ hops: 1 }, '198.51.100.7')).toBe('198.51.100.7')
    // No header: the socket is the best there is.
    expect(ipOf({ hops: 1 }, undefined)).toBe('10.0.0.2')
  })

  it('two hops: skips the proxy in front of the load balancer, still ignores the client-written part', () => {
    expect(ipOf({ hops: 2 }, 'spoofed, 198.51.100.7, 10.0.0.9')).toBe('198.51.100.7')
    // Fewer entries than hops: the furthest one (as Express does).
    expect(ipOf({ hops: 3 }, '198.51.100.7')).toBe('198.51.100.7')
  })

  it('several X-Forwarded-For headers count as one list', () => {
    const headers = new Headers()
    headers.append('x-forwarded-for', '6.6.6.6')
    headers.append('x-forwarded-for', '198.51.100.7')
    expect(clientIp(new Request('http://localhost/', { headers }), socket('10.0.0.2'), { hops: 1 })).toBe('198.51.100.7')
  })

  it('trusted CIDRs: the first hop from the right that is not a known proxy', () => {
    const trust = parseTrustProxy('10.0.0.0/8, ::1') as TrustProxy
    expect(ipOf(trust, '6.6.6.6, 198.51.100.7, 10.1.2.3')).toBe('198.51.100.7')
    expect(clientIp(req('6.6.6.6, 2001:db8::5'), socket('::1'), trust)).toBe('2001:db8::5')
    // A direct connection from outside the trusted ranges: its header is ignored.
    expect(ipOf(trust, '198.51.100.7', '203.0.113.50')).toBe('203.0.113.50')
    // A spoofed "proxy" address on the left does not extend the trusted chain past a real client.
    expect(ipOf(trust, '10.9.9.9, 198.51.100.7')).toBe('198.51.100.7')
  })
})

describe('TRUST_PROXY configuration', () => {
  const trust = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy

  it('accepts booleans (true = one hop), hop counts and proxy lists', () => {
    expect(loadConfig({}).trustProxy).toEqual({ hops: 0 })
    expect(trust('true')).toEqual({ hops: 1 })
    expect(trust('false')).toEqual({ hops: 0 })
    expect(trust('1')).toEqual({ hops: 1 })
    expect(trust('3')).toEqual({ hops: 3 })
    expect(trust('10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8')).toEqual({ proxies: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'] })
  })

  it('refuses anything else with a message naming TRUST_PROXY', () => {
    for (const bad of ['maybe', '17', '-1', '1.5', '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8,', 'loopback', '::1/129']) {
      expect(() => trust(bad)).toThrow(ConfigError)
      expect(() => trust(bad)).toThrow(/TRUST_PROXY/)
    }
  })
})

describe('spoofed left-most entries through the app (TRUST_PROXY=true)', () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness({ seed: false, env: { TRUST_PROXY: 'true', RATE_LIMIT_AUTH_PER_MIN: '20' } })
  }, 60_000)
  afterAll(() => h.close())

  const features = Array.from({ length: 34 }, (_, i) => 0.5 + i / 100)
  // What an attacker behind one honest proxy sends: a fresh left-most address each time; the proxy appends the real one.
  const spoofed = (i: number, real: string) => ({ 'x-forwarded-for': `100.64.${i >> 8}.${i & 255}, ${real}` })

  it('100 live-score requests with fresh left-most entries pass the 60/min limit only 60 times', async () => {
    let passed = 0
    for (let i = 0; i < 100; i++) {
      const res = await h.request('POST', '/v1/demo/live-score', { body: { features }, headers: spoofed(i, '198.51.100.10') })
      if (res.status === 200) passed++
      else expect(res.status).toBe(429)
    }
    console.log(`[attack-client-ip] live-score: ${passed} of 100 spoofed requests passed (limit 60/min)`)
    expect(passed).toBe(60)
  })

  it('25 logins with fresh left-most entries hit 429 after RATE_LIMIT_AUTH_PER_MIN', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 25; i++) {
      const res = await h.json('POST', '/auth/login', {
        body: { email: `nobody-${i}@example.test`, password: 'not-the-password-1' },
        headers: spoofed(i, '198.51.100.11'),
      })
      statuses.push(res.status)
    }
    const limited = statuses.filter((s) => s === 429).length
    console.log(`[attack-client-ip] login: ${limited} of 25 spoofed logins got 429 (limit 20/min)`)
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true)
    expect(limited).toBe(5)
  })
})
