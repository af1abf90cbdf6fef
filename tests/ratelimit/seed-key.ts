import { createKeyPair } from '../../src/server/modules/keys/service'
import type { Harness } from '../helpers/harness'

/** A second secret key for an organization; returns its plaintext. */
export async function secondSecretKey(h: Harness, orgId: string): Promise<string> {
  const { secretKey } = await createKeyPair(h.deps.db.sql, orgId, { name: 'second', sdkType: 'server' })
  return secretKey
}
