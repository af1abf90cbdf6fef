import { join } from 'node:path'
import { UUID_RE } from '../../platform/contract'
import type { Db } from '../../platform/db'
import { pagePublicKey } from '../keys'

export type DemoOrg = { orgId: string; publicKey: string }

/**
 * The demo organization is the one main.ts provisioned into DATA_DIR/demo-credentials.json.
 * Only its org_id is taken from the file (never its secret key, never an org picked by name, which
 * any sign-up could reuse); the public key is read from the database, so a rotation shows at once.
 */
export async function findDemoOrg(db: Db, dataDir: string): Promise<DemoOrg | null> {
  let orgId: unknown
  try {
    orgId = (JSON.parse(await Bun.file(join(dataDir, 'demo-credentials.json')).text()) as { org_id?: unknown }).org_id
  } catch {
    return null
  }
  if (typeof orgId !== 'string' || !UUID_RE.test(orgId)) return null
  const publicKey = await pagePublicKey(db, orgId)
  return publicKey ? { orgId, publicKey } : null
}
