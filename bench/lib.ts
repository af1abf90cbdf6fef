/** Resolves once `url` answers at all (any status); a benchmark's child service has started. */
export async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url)
      return
    } catch {
      await Bun.sleep(100)
    }
  }
  throw new Error(`${url} did not come up`)
}
