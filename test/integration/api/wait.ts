/** Polls `pred` until true or `ms` passed; the error says what was waited for. */
export async function waitFor(pred: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  let delay = 20;
  while (!(await pred())) {
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await Bun.sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 250);
  }
}
