// ES-module entry (/sdk/v1.mjs); its public types are v1.d.ts.
export { init, version } from './client'
export type { BssClient, BssStats, InitOptions } from './v1'
