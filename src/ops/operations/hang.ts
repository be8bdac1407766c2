/**
 * METAL_DEBUG_HANG: a real hang for the lab, the kind a stuck driver call causes: the
 * main thread blocks in Atomics.wait, so no timer, no promise and no watchdog ping
 * runs any more. Only the hardware watchdog (or the lab's bound) ends it.
 */
export function hangForever(): never {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0);
}
