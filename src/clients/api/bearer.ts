/**
 * The Authorization credential of the apiserver client, renewable: the machine token from
 * metal-boot lives 3 days (metal-stack/pixie@8b0f1da5 pixiecore/http.go:240-245), a wait may
 * outlive it, and the apiserver then answers `unauthenticated`. The client (connect-client.ts) asks
 * `renew` once after such an answer; the holder renews only a token that had worked (an
 * expiry, not a wrong token), and reports a renewal another call made meanwhile as done.
 */
export interface Bearer {
  /** The token to send now. */
  value(): string;
  /** A call with `used` was answered: that token works. */
  worked(used: string): void;
  /**
   * After `unauthenticated` for a call made with `used`: true when a new token is there to
   * retry with (fetched now, or by another call meanwhile), false when `used` never worked
   * or no new token could be had (the caller then throws the refusal).
   */
  renew(used: string): Promise<boolean>;
}

/** A token that is never renewed (debug commands, tests). */
export function fixedBearer(token: string): Bearer {
  return { value: () => token, worked: () => {}, renew: async () => false };
}
