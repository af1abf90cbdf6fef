import { describe, expect, it } from 'bun:test'
import { GroupCommit, KnownSessions, ScoringRuns, SessionQueue } from '../../src/server/modules/ingest/queue'
import { ApiError } from '../../src/server/platform/errors'

/** A promise and its resolve, to hold work open until the test lets it go. */
function gate() {
  let open!: () => void
  const closed = new Promise<void>((resolve) => {
    open = resolve
  })
  return { closed, open }
}

describe('SessionQueue', () => {
  it('runs one session’s work one at a time in arrival order, other sessions alongside', async () => {
    const queue = new SessionQueue()
    const log: string[] = []
    const first = gate()
    const a1 = queue.run('a', async () => {
      log.push('a1 start')
      await first.closed
      log.push('a1 end')
    })
    const a2 = queue.run('a', async () => {
      log.push('a2')
    })
    const b1 = queue.run('b', async () => {
      log.push('b1')
    })
    await b1
    expect(log).toEqual(['a1 start', 'b1'])
    first.open()
    await Promise.all([a1, a2])
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2'])
    expect(queue.size).toBe(0)
  })

  it('goes on after a failed turn, and refuses past its bound with 503 and Retry-After', async () => {
    const queue = new SessionQueue(2)
    const hold = gate()
    const failing = queue.run('s', async () => {
      await hold.closed
      throw new Error('boom')
    })
    const next = queue.run('s', async () => 'ran')
    const refused = queue.run('s', async () => 'never')
    await expect(refused).rejects.toBeInstanceOf(ApiError)
    await refused.catch((e: ApiError) => {
      expect(e.status).toBe(503)
      expect(e.headers).toEqual({ 'retry-after': '1' })
    })
    hold.open()
    await expect(failing).rejects.toThrow('boom')
    expect(await next).toBe('ran')
    expect(queue.size).toBe(0)
  })
})

describe('ScoringRuns', () => {
  it('lets a burst share the running run and one waiting run, never more', async () => {
    const runs = new ScoringRuns<number>()
    let started = 0
    const gates = [gate(), gate()]
    const run = () => {
      const n = started++
      return gates[n]!.closed.then(() => n)
    }
    const first = runs.run('s', run)
    // Arrived while the first run is running: they must not take its result (it may have read too early).
    const later = [runs.run('s', run), runs.run('s', run), runs.run('s', run)]
    expect(started).toBe(1)
    gates[0]!.open()
    expect(await first).toBe(0)
    gates[1]!.open()
    expect(await Promise.all(later)).toEqual([1, 1, 1])
    expect(started).toBe(2)
  })
})

describe('GroupCommit', () => {
  it('writes at once when a slot is free, groups what waits by key, and keeps at most maxInFlight groups', async () => {
    const groups: string[][] = []
    const holds: (() => void)[] = []
    let inFlight = 0
    let most = 0
    const writer = new GroupCommit<{ key: string; id: string }>(
      (job) => job.key,
      (jobs) => {
        groups.push(jobs.map((j) => j.id))
        inFlight++
        most = Math.max(most, inFlight)
        return new Promise<void>((resolve) => {
          holds.push(() => {
            inFlight--
            resolve()
          })
        })
      },
      2,
      3
    )
    writer.add({ key: 'x', id: 'x1' })
    writer.add({ key: 'y', id: 'y1' })
    for (const id of ['x2', 'y2', 'x3', 'x4', 'x5']) writer.add({ key: id[0]!, id })
    expect(groups).toEqual([['x1'], ['y1']])
    holds.shift()!()
    await Bun.sleep(0)
    // The oldest waiting job's key goes first, at most 3 of them.
    expect(groups).toEqual([['x1'], ['y1'], ['x2', 'x3', 'x4']])
    holds.shift()!()
    await Bun.sleep(0)
    expect(groups).toEqual([['x1'], ['y1'], ['x2', 'x3', 'x4'], ['y2']])
    while (holds.length) {
      holds.shift()!()
      await Bun.sleep(0)
    }
    expect(groups.at(-1)).toEqual(['x5'])
    expect(most).toBe(2)
  })

  it('keeps at most maxPerKey groups of one key in flight (2 here), while other keys use the free slots', async () => {
    const groups: string[][] = []
    const holds: (() => void)[] = []
    const writer = new GroupCommit<{ key: string; id: string }>(
      (job) => job.key,
      (jobs) => {
        groups.push(jobs.map((j) => j.id))
        return new Promise<void>((resolve) => holds.push(resolve))
      },
      8,
      64,
      2
    )
    for (const id of ['x1', 'x2', 'x3', 'x4', 'y1', 'x5']) writer.add({ key: id[0]!, id })
    // x1 and x2 took x's two slots; y1 is not held back by the x batches waiting before it.
    expect(groups).toEqual([['x1'], ['x2'], ['y1']])
    holds.shift()!()
    await Bun.sleep(0)
    expect(groups).toEqual([['x1'], ['x2'], ['y1'], ['x3', 'x4', 'x5']])
  })
})

describe('KnownSessions', () => {
  it('remembers sessions up to its bound, forgetting the oldest first', () => {
    const known = new KnownSessions(2)
    known.add('a')
    known.add('b')
    known.add('a')
    expect([known.has('a'), known.has('b'), known.has('c')]).toEqual([true, true, false])
    known.add('c')
    expect([known.has('a'), known.has('b'), known.has('c')]).toEqual([false, true, true])
  })
})
