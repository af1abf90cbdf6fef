import * as v from 'valibot'

// Every message is fixed text: valibot's defaults echo the received value, and these fields carry secrets.
const NO_CONTROL_CHARS = /^[^\p{Cc}]*$/u

export const Email = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254, 'must be at most 254 characters'),
  v.email('must be an email address')
)

const PlainText = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(NO_CONTROL_CHARS, 'must not contain control characters')
  )

// The upper bound keeps argon2 from hashing megabytes on request.
const NewPassword = v.pipe(
  v.string('must be a string'),
  v.minLength(10, 'must be at least 10 characters'),
  v.maxLength(256, 'must be at most 256 characters')
)

// Login does not re-apply the sign-up policy: a short password is simply wrong.
const AnyPassword = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(256, 'must be at most 256 characters')
)

export const RegisterBody = v.object({
  email: Email,
  password: NewPassword,
  name: v.optional(PlainText(100)),
  organization_name: v.pipe(PlainText(100), v.minLength(1, 'must not be empty')),
})
export type RegisterInput = v.InferOutput<typeof RegisterBody>

export const LoginBody = v.object({ email: Email, password: AnyPassword })
export type LoginInput = v.InferOutput<typeof LoginBody>

export const VerifyOtpBody = v.object({
  challenge_id: v.pipe(v.string('must be a string'), v.uuid('must be a UUID'), v.toLowerCase()),
  code: v.pipe(v.string('must be a string'), v.regex(/^\d{6}$/, 'must be exactly 6 digits')),
})
export type VerifyOtpInput = v.InferOutput<typeof VerifyOtpBody>

export const RefreshTokenBody = v.object({
  refresh_token: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(512, 'must be at most 512 characters')
  ),
})
export type RefreshTokenInput = v.InferOutput<typeof RefreshTokenBody>

export type ChallengeResponse = { status: 'otp_required'; challenge_id: string; expires_at: string }

export type TokenResponse = {
  access_token: string
  refresh_token: string
  token_type: 'Bearer'
  expires_in: number
  user: { user_id: string; email: string; name: string | null }
  organization: { org_id: string; name: string; plan_id: string; role: string }
}

// Response shapes, for the OpenAPI document (the handlers return the types above).
export const ChallengeSchema = v.object({
  status: v.literal('otp_required'),
  challenge_id: v.pipe(v.string(), v.uuid()),
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
})

export const TokenPairSchema = v.object({
  access_token: v.pipe(v.string(), v.description('JWT, valid 15 minutes: `Authorization: Bearer <access_token>`.')),
  refresh_token: v.pipe(v.string(), v.description('Opaque, single use: rotated by every /auth/refresh.')),
  token_type: v.literal('Bearer'),
  expires_in: v.pipe(v.number(), v.integer(), v.description('Seconds until the access token expires.')),
  user: v.object({ user_id: v.pipe(v.string(), v.uuid()), email: v.string(), name: v.nullable(v.string()) }),
  organization: v.object({
    org_id: v.pipe(v.string(), v.uuid()),
    name: v.string(),
    plan_id: v.string(),
    role: v.picklist(['owner', 'admin', 'member']),
  }),
})
