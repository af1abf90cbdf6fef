import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, freshEmail } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

let h: Harness
let prod: Harness
beforeAll(async () => {
  h = await createHarness({ seed: false })
  prod = await createHarness({ seed: false, env: { NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-at-least-32-chars' } })
}, 60_000)
afterAll(async () => {
  await h.close()
  await prod.close()
})

describe('GET /dev/mail', () => {
  it("lists one address's mail, newest first, in the contract's shape", async () => {
    const to = freshEmail('mail')
    await h.deps.mailer.send({ to, subject: 'first', text: 'one' })
    await h.deps.mailer.send({ to, subject: 'second', text: 'two' })
    await h.deps.mailer.send({ to: freshEmail('other'), subject: 'not yours', text: 'x' })
    const res = await h.json('GET', `/dev/mail?to=${encodeURIComponent(to.toUpperCase())}`)
    expect(res.status).toBe(200)
    expect(res.body.messages.map((m: any) => m.subject)).toEqual(['second', 'first'])
    const [m] = res.body.messages
    expect(Object.keys(m).sort()).toEqual(['code', 'created_at', 'subject', 'text', 'to'])
    expect(m).toMatchObject({ to, subject: 'second', text: 'two', code: null })
    expect(m.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it('answers an empty list for an address with no mail', async () => {
    const res = await h.json('GET', `/dev/mail?to=${freshEmail('none')}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ messages: [] })
  })

  it('requires a valid `to`', async () => {
    for (const query of ['', '?to=', '?to=not-an-email', `?to=${'a'.repeat(300)}@x.com`, '?to=a@x.com&to=b@x.com', '?other=1']) {
      const res = await h.json('GET', `/dev/mail${query}`)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details[0].path).toBe('to')
    }
  })

  it('receives the sign-up code mail', async () => {
    const email = freshEmail('signup')
    await h.json('POST', '/auth/register', { body: { email, password: PASSWORD, organization_name: 'O' } })
    const res = await h.json('GET', `/dev/mail?to=${email}`)
    expect(res.body.messages).toHaveLength(1)
    expect(res.body.messages[0].text).toMatch(/\b\d{6}\b/)
    // The code also as a field, the one in the text (README: read it with one line of jq).
    expect(res.body.messages[0].code).toMatch(/^\d{6}$/)
    expect(res.body.messages[0].text).toContain(res.body.messages[0].code)
  })
})

describe('GET /dev/mail in production', () => {
  it('does not exist', async () => {
    const to = freshEmail('prod')
    await prod.deps.mailer.send({ to, subject: 's', text: 't' })
    const res = await prod.json('GET', `/dev/mail?to=${to}`)
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('not_found')
    expect(JSON.stringify(res.body)).not.toContain('"t"')
  })

  it('keeps the account routes', async () => {
    const res = await prod.json('POST', '/auth/register', { body: { email: freshEmail(), password: PASSWORD, organization_name: 'O' } })
    expect(res.status).toBe(202)
  })
})
