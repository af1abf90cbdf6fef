import { randomBase62 } from '../../platform/crypto'

const OPTIONS = { algorithm: 'argon2id' } as const

let dummy: Promise<string> | undefined

/** An object (not bare functions) so tests can observe that unknown emails still pay for a verify. */
export const passwords = {
  hash: (password: string): Promise<string> => Bun.password.hash(password, OPTIONS),
  verify: (password: string, hash: string): Promise<boolean> => Bun.password.verify(password, hash),
  /** A hash with the same cost as real ones, verified for unknown emails so both paths take as long. */
  dummyHash: (): Promise<string> => (dummy ??= Bun.password.hash(randomBase62(32), OPTIONS)),
}
