/**
 * Bounded polling with jitter: every wait in the tests goes through here. The probe
 * answers the value waited for, or undefined/null/false for "not yet".
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs: number, stepMs = 50): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (performance.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(stepMs * (0.75 + Math.random() / 2));
  }
}

/** The same wait for a yes/no condition, in the (pred, ms, what) order the namespace suites use. */
export async function waitUntil(pred: () => boolean | Promise<boolean>, ms: number, what: string, stepMs = 20): Promise<void> {
  await waitFor(what, pred, ms, stepMs);
}
