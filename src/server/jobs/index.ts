import type { Services } from '../services'
import { startAuthPurge } from './auth-purge'
import { startPartitions } from './partitions'
import { startRetention } from './retention'
import { startBackgroundScorer } from './scorer'

/** Starts every housekeeping job (main.ts); the returned function stops them all. */
export function startJobs(services: Services): () => void {
  const stops = [startPartitions(services), startRetention(services), startAuthPurge(services), startBackgroundScorer(services)]
  return () => {
    for (const stop of stops) stop()
  }
}
