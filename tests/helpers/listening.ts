/** The "listening" log line of src/server/main.ts names the URL (with the port PORT=0 got). */
const LISTENING_URL = /"url":"(http:\/\/[^"]+)"/

/**
 * Reads a spawned server's stdout until `pattern` matches, and returns its first group. The rest of stdout is
 * drained in the background (a full pipe would block the server), each chunk handed to `keep` for a test that
 * reads the log later. Throws with what the server printed if it exits first.
 */
export async function readUntil(
  child: Bun.Subprocess<Bun.SpawnOptions.Writable, 'pipe', Bun.SpawnOptions.Readable>,
  pattern: RegExp = LISTENING_URL,
  keep?: (chunk: string) => void
): Promise<string> {
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) {
      const stderr = child.stderr instanceof ReadableStream ? await new Response(child.stderr).text() : ''
      throw new Error(`the server exited before ${pattern}:\n${text}\n${stderr}`)
    }
    const chunk = decoder.decode(value, { stream: true })
    text += chunk
    keep?.(chunk)
    const found = pattern.exec(text)?.[1]
    if (found) {
      void (async () => {
        for (;;) {
          const next = await reader.read()
          if (next.done) break
          keep?.(decoder.decode(next.value, { stream: true }))
        }
      })()
      return found
    }
  }
}
