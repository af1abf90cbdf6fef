/**
 * Behavioral Scoring Service — browser SDK v1 (ES module build, /sdk/v1.mjs).
 *
 *   import { init } from './v1.mjs'
 *   const bss = init({ publicKey: 'svc_live_pk_…', endpoint: 'https://api.example.com' })
 *   // send bss.sessionId to your backend, which asks GET /v1/session/:id with its secret key
 *
 * The same API is the global `BSS` when the IIFE build (/sdk/v1.js) is loaded with a script tag.
 * Nothing here ever throws into the host page: bad options give an inert client and a console warning.
 */

export interface InitOptions {
  /** The organization's public key (`svc_live_pk_…`). Never put a secret key in a web page. */
  publicKey: string
  /** Base URL of the service, e.g. `https://api.example.com`. Default: the page's own origin. */
  endpoint?: string
  /** Milliseconds between timed flushes. Default 5000. */
  flushIntervalMs?: number
  /** A batch is sent as soon as this many events wait. Default 200. */
  maxBatch?: number
  /** Events kept while the service is unreachable; the oldest are dropped beyond it. Default 5000. */
  maxBuffer?: number
}

export interface BssStats {
  /** events the service accepted (fetch answered 2xx, or the browser queued a beacon) */
  sent: number
  /** events waiting to be sent */
  buffered: number
  /** events given up on: buffer overflow, retries exhausted, or refused with a 4xx */
  dropped: number
  /** fetch requests made, retries included */
  requests: number
  /** navigator.sendBeacon calls the browser accepted */
  beacons: number
  /** failed fetch attempts (network error, 5xx, 429) */
  failures: number
}

export interface BssClient {
  /** The session id (UUID) for this tab; give it to your backend to fetch the verdict. Read it when you send it: a popup or duplicated tab moves to its own session just after load. */
  readonly sessionId: string
  /** Sends everything buffered now (fetch); resolves when the service has answered. */
  flush(): Promise<void>
  /** Counters for diagnostics. */
  stats(): BssStats
  /** Removes every listener and sends what is left with sendBeacon. */
  stop(): void
}

/** Starts collecting on this page. Calling it again with the same key returns the running client. */
export declare function init(options: InitOptions): BssClient

/** SDK version. */
export declare const version: string
