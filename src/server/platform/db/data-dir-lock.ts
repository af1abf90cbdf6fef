import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'

/** Who holds DATA_DIR: written into DATA_DIR/bss.lock by the instance that opened it. */
type Holder = { pid: number; host: string; started_at: string }

/** A second instance on one DATA_DIR: two processes writing one PGlite folder corrupt it silently. */
export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED'
}

export const LOCK_FILE = 'bss.lock'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0) // signal 0: only asks whether the process exists
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

function readHolder(path: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Holder
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? holder : null
  } catch {
    return null
  }
}

/**
 * Takes DATA_DIR for this process (created exclusively, so of two starting instances one wins) and
 * returns its release. A lock left by a process that is gone on this host (killed, crashed, or the
 * previous life of this container, whose pid may equal ours) is stale and taken over; a lock from
 * another host cannot be checked, so it is refused with the holder's name (delete the file if that
 * host no longer uses the folder). A file that is not a lock at all is taken over too.
 */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE)
  const me: Holder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644)
      writeSync(fd, JSON.stringify(me))
      closeSync(fd)
      return () => {
        // Only our own lock: never remove one a later instance took over after ours went stale.
        if (readHolder(path)?.pid === me.pid && readHolder(path)?.started_at === me.started_at) unlinkSync(path)
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = readHolder(path)
    const stale = !holder || (holder.host === me.host && (holder.pid === me.pid || !alive(holder.pid)))
    if (!stale) {
      throw new DataDirLockedError(
        `DATA_DIR ${dir} is in use by another instance (pid ${holder.pid} on ${holder.host}, since ${holder.started_at}); ` +
          `stop it, or give this one another DATA_DIR. If that process is gone, delete ${path}.`
      )
    }
    unlinkSync(path)
  }
  throw new DataDirLockedError(`DATA_DIR ${dir}: another instance took ${path} while this one was starting`)
}
