import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { purgeExpiredAuth } from '../../src/server/modules/auth'
import { createHarness, type Harness } from '../helpers/harness'
import { signedUp } from './support'

let h: Harness
beforeAll(async () => {
  h = await createHarness({ seed: false })
})
afterAll(() => h.close())

const count = async (table: 'otp_challenges' | 'refresh_tokens') =>
  (await h.deps.db.sql<{ n: number }[]>`select count(*)::int as n from ${h.deps.db.sql(table)}`)[0]!.n

describe('purgeExpiredAuth', () => {
  it('keeps live challenges and tokens, deletes them once they can no longer be used', async () => {
    await signedUp(h)
    expect(await count('otp_challenges')).toBeGreaterThan(0)
    expect(await count('refresh_tokens')).toBeGreaterThan(0)

    expect(await purgeExpiredAuth(h.deps.db, h.clock.now())).toEqual({ challenges: 0, refresh_tokens: 0 })
    // A day past the 10-minute code expiry the challenge goes; the 30-day refresh token stays.
    const day = 24 * 60 * 60 * 1000
    const purged = await purgeExpiredAuth(h.deps.db, new Date(h.clock.now().getTime() + day + 11 * 60 * 1000))
    expect(purged.challenges).toBeGreaterThan(0)
    expect(purged.refresh_tokens).toBe(0)
    expect(await count('otp_challenges')).toBe(0)
    expect(await count('refresh_tokens')).toBeGreaterThan(0)

    await purgeExpiredAuth(h.deps.db, new Date(h.clock.now().getTime() + 31 * day))
    expect(await count('refresh_tokens')).toBe(0)
  })
})
