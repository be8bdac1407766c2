/**
 * The one bounded wait of the tests, benches and the lab: polls `probe` with jitter
 * until it answers a value (anything but undefined/null/false), which is returned, or
 * `timeoutMs` passed; the error says what was waited for. Never a fixed sleep.
 *   await waitFor(() => fileExists(p), 5000, `pid file ${p}`)
 */
export async function waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs: number, what: string, stepMs = 50): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (performance.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(stepMs * (0.75 + Math.random() / 2));
  }
}
