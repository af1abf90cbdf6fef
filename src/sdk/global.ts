// Script-tag entry (/sdk/v1.js): exposes the API as the global `BSS`.
import { init, version } from './client'

const scope = globalThis as { BSS?: unknown }
// A page that includes the script twice keeps the first copy (and its running client).
if (!scope.BSS) scope.BSS = Object.freeze({ init, version })
