/**
 * API key pairs: managed over GraphQL (keysGraphQL), resolved to an organization by the credential
 * plugin through findActiveKey (wired in services.ts). No REST routes of its own.
 */
export { keysGraphQL } from './graphql'
export {
  createKeyPair,
  findKeyPair,
  findActiveKey,
  listKeyPairs,
  pagePublicKey,
  revokeKeyPair,
  rotateKeyPair,
  touchLastUsed,
  updateKeyPairOrigins,
  type KeyPairRow,
} from './service'
