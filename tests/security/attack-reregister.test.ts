import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { freshEmail, outbox } from '../auth/support'

/**
 * Issue 15, item 4: re-registering an address whose sign-up was never verified replaced the
 * pending password and organization name at once, so the owner's own code then activated a
 * stranger's password. Now each registration's password and names wait with its own challenge.
 */
let h: Harness
beforeAll(async () => {
  h = await createHarness({ seed: false })
})
afterAll(() => h.close())

const OWNER = { password: 'the-owners-own-password', name: 'Olivia', organization_name: 'Owner Co' }
const STRANGER = { password: 'the-strangers-password', name: 'Mallory', organization_name: 'Evil Corp' }

const register = (email: string, who: typeof OWNER) => h.json('POST', '/auth/register', { body: { email, ...who } })
const verify = (challenge_id: string, code: string) => h.json('POST', '/auth/verify-otp', { body: { challenge_id, code } })
const login = (email: string, password: string) => h.json('POST', '/auth/login', { body: { email, password } })
const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)![1]!

/** The codes mailed to an address, oldest first. */
async function codes(email: string): Promise<string[]> {
  return (await outbox(h, email)).reverse().map((m) => codeOf(m.text))
}

describe('a stranger re-registering an unverified address (issue 15, item 4)', () => {
  it("the owner's code activates the owner's password and organization, never the stranger's", async () => {
    const email = freshEmail('victim')
    const mine = await register(email, OWNER)
    const theirs = await register(email, STRANGER)
    // No enumeration: the stranger gets the same answer as any sign-up.
    expect(mine.status).toBe(202)
    expect(theirs.status).toBe(202)
    expect(Object.keys(theirs.body).sort()).toEqual(Object.keys(mine.body).sort())

    const [myCode, theirCode] = await codes(email)
    const res = await verify(mine.body.challenge_id, myCode!)
    expect(res.status).toBe(200)
    expect(res.body.organization.name).toBe('Owner Co')
    expect(res.body.user.name).toBe('Olivia')

    expect((await login(email, STRANGER.password)).status).toBe(401)
    expect((await login(email, OWNER.password)).status).toBe(202)
    // The stranger's challenge died when the owner verified: even its own code no longer works.
    expect((await verify(theirs.body.challenge_id, theirCode!)).status).toBe(401)
    const [org] = await h.deps.db.sql`select o.name from organizations o where o.org_id = ${res.body.organization.org_id}`
    expect(org!.name).toBe('Owner Co')
  })

  it('a pending re-registration changes nothing before its own code is verified', async () => {
    const email = freshEmail('pending')
    await register(email, OWNER)
    await register(email, STRANGER)
    // Unverified accounts may log in: still with the owner's password, not the stranger's.
    expect((await login(email, STRANGER.password)).status).toBe(401)
    expect((await login(email, OWNER.password)).status).toBe(202)
    const [row] = await h.deps.db.sql`
      select u.name as user_name, o.name as org_name from users u
      join memberships m on m.user_id = u.user_id join organizations o on o.org_id = m.org_id where u.email = ${email}`
    expect(row).toEqual({ user_name: 'Olivia', org_name: 'Owner Co' })
  })

  it('a stranger who registered first is replaced by the owner who verifies', async () => {
    const email = freshEmail('squatted')
    const theirs = await register(email, STRANGER)
    const mine = await register(email, OWNER)
    const [, myCode] = await codes(email)
    const res = await verify(mine.body.challenge_id, myCode!)
    expect(res.status).toBe(200)
    expect(res.body.organization.name).toBe('Owner Co')
    expect((await login(email, STRANGER.password)).status).toBe(401)
    expect((await login(email, OWNER.password)).status).toBe(202)
    expect(theirs.status).toBe(202)
  })

  it('a registration verified after the owner verified changes nothing', async () => {
    const email = freshEmail('late')
    const mine = await register(email, OWNER)
    const [myCode] = await codes(email)
    expect((await verify(mine.body.challenge_id, myCode!)).status).toBe(200)
    // Verified now: a sign-up with this address is only a decoy, whatever its code.
    const theirs = await register(email, STRANGER)
    expect(theirs.status).toBe(202)
    expect((await verify(theirs.body.challenge_id, myCode!)).status).toBe(401)
    expect((await login(email, STRANGER.password)).status).toBe(401)
    expect((await login(email, OWNER.password)).status).toBe(202)
  })

  it('keeps no password hash of a verified sign-up in its challenge', async () => {
    const email = freshEmail('hygiene')
    const mine = await register(email, OWNER)
    const [myCode] = await codes(email)
    expect((await verify(mine.body.challenge_id, myCode!)).status).toBe(200)
    const [c] = await h.deps.db.sql`select pending_password_hash from otp_challenges where challenge_id = ${mine.body.challenge_id}`
    expect(c!.pending_password_hash).toBeNull()
  })
})
