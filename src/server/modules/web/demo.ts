import { join } from 'node:path'
import type { Sql } from '../../platform/db'

export type DemoOrg = { orgId: string; publicKey: string }

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The demo organization is the one main.ts provisioned into DATA_DIR/demo-credentials.json.
 * Only its org_id is taken from the file (never its secret key, never an org picked by name, which
 * any sign-up could reuse); the public key is read from the database, so a rotation shows at once.
 */
export async function findDemoOrg(sql: Sql, dataDir: string): Promise<DemoOrg | null> {
  let orgId: unknown
  try {
    orgId = (JSON.parse(await Bun.file(join(dataDir, 'demo-credentials.json')).text()) as { org_id?: unknown }).org_id
  } catch {
    return null
  }
  if (typeof orgId !== 'string' || !UUID_RE.test(orgId)) return null
  const [row]: [{ public_key: string }?] = await sql`
    select public_key from api_key_pairs
    where org_id = ${orgId} and revoked_at is null
    order by (sdk_type = 'web') desc, created_at asc
    limit 1`
  return row ? { orgId, publicKey: row.public_key } : null
}
