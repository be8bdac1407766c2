/**
 * BMC passwords. The metal user's is random with go-hal's constraints: 10 characters,
 * 3 of them digits, no symbols, upper and lower case, no character twice
 * (metal-stack/go-hal@4ca05b53 pkg/api/types.go:180-188). IPMI 2.0 allows 20 bytes, IPMI 1.5
 * 16 (metal-stack/metal-api#597); ipmi_sim and some BMCs silently keep only the first 16
 * of a longer one, so a password from the apiserver longer than 16 is refused here rather
 * than set and then not working. Any printable ASCII character is fine (`#`, quotes,
 * `~`): it reaches the BMC as raw bytes, not through ipmitool's line parser
 * (set-user-password.ts). Pure: randomness comes in as bytes.
 */

const DIGITS = "0123456789";
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const METAL_PASSWORD_LENGTH = 10;
const METAL_PASSWORD_DIGITS = 3;
/** The longest password the agent sets (IPMI 1.5's limit, which every BMC keeps whole). */
export const BMC_PASSWORD_MAX = 16;

/** A source of uniformly random bytes (crypto.getRandomValues in the shell). */
export type RandomBytes = (n: number) => Uint8Array;

/** An unbiased index below `n` drawn from `random` (rejection sampling). */
function pick(random: RandomBytes, n: number): number {
  const limit = 256 - (256 % n);
  for (;;) {
    const b = random(1)[0] as number;
    if (b < limit) return b % n;
  }
}

/** A password of METAL_PASSWORD_LENGTH distinct characters, METAL_PASSWORD_DIGITS of them digits. */
export function metalPassword(random: RandomBytes): string {
  const chars: string[] = [];
  const take = (from: string) => {
    for (;;) {
      const c = from[pick(random, from.length)] as string;
      if (!chars.includes(c)) return chars.push(c);
    }
  };
  for (let i = 0; i < METAL_PASSWORD_DIGITS; i++) take(DIGITS);
  while (chars.length < METAL_PASSWORD_LENGTH) take(LETTERS);
  // Fisher-Yates, so the digits are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = pick(random, i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join("");
}

/** Why `password` cannot be set on a BMC, or undefined when it can. Never includes the password. */
export function passwordProblem(password: string): string | undefined {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes === 0) return "it is empty";
  if (bytes > BMC_PASSWORD_MAX) return `it is ${bytes} bytes long, more than the ${BMC_PASSWORD_MAX} every BMC keeps (IPMI 1.5; many keep only the first 16 of IPMI 2.0's 20)`;
  if (!/^[\x21-\x7e]+$/.test(password))
    return "it holds blanks, control or non-ASCII characters: the agent sets printable ASCII only (0x21-0x7e), which every BMC and its tools read alike";
  return undefined;
}
