/** Bounded polling with jitter: every wait in the lab and its tests goes through here. */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, stepMs = 50): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (performance.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(stepMs * (0.75 + Math.random() / 2));
  }
}
