/**
 * A seeded random source for the fuzz passes: the same seed, the same cases, so a failing
 * case is replayed by its seed and index.
 */

/** mulberry32: small, seeded, good enough to pick mutations. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type R = () => number;
export const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
export const int = (r: R, n: number) => Math.floor(r() * n);

/** How often each outcome came. */
export function tally(codes: readonly string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const c of codes) t[c] = (t[c] ?? 0) + 1;
  return t;
}
