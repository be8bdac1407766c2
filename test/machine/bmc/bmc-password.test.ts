import { describe, expect, test } from "bun:test";
import { metalPassword, passwordProblem } from "../../../src/machine/bmc/bmc-password.ts";

/** A deterministic byte source: a counter. */
function counter(start = 0): (n: number) => Uint8Array {
  let i = start;
  return (n) => Uint8Array.from({ length: n }, () => i++ & 0xff);
}

describe("metalPassword", () => {
  test("is the same for the same random bytes (exact vector)", () => {
    expect(metalPassword(counter())).toBe(metalPassword(counter()));
    // Worked by hand: digits 0,1,2 then letters d..j from bytes 0..9, shuffled by bytes 10..18.
    expect(metalPassword(counter())).toBe("1dfhjige20");
  });

  test("keeps go-hal's constraints: 10 distinct characters, 3 digits, letters otherwise, no symbols", () => {
    for (let i = 0; i < 500; i++) {
      const p = metalPassword((n) => crypto.getRandomValues(new Uint8Array(n)));
      expect(p).toHaveLength(10);
      expect(new Set(p).size).toBe(10);
      expect(p.replace(/\D/g, "")).toHaveLength(3);
      expect(p).toMatch(/^[A-Za-z0-9]+$/);
      expect(passwordProblem(p)).toBeUndefined();
    }
  });
});

describe("passwordProblem", () => {
  test("refuses what a BMC would cut or ipmitool cannot pass, without quoting it", () => {
    expect(passwordProblem("")).toBe("it is empty");
    const long = "a".repeat(17);
    expect(passwordProblem(long)).toContain("17 bytes long, more than the 16");
    expect(passwordProblem(long)).not.toContain(long);
    expect(passwordProblem("with blank")).toContain("blanks");
    expect(passwordProblem("sixteen-chars-ok")).toBeUndefined();
  });
});
