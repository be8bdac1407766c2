import { describe, expect, test } from "bun:test";
import { generateConsolePassword } from "../../src/install/console-password.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";

describe("console password", () => {
  test("16 characters of standard base64 from crypto random bytes, new every time, registered as a secret", () => {
    const secrets = new SecretSet();
    const a = generateConsolePassword(secrets);
    const b = generateConsolePassword(secrets);
    expect(a).toMatch(/^[A-Za-z0-9+/]{16}$/);
    expect(a).not.toBe(b);
    expect(secrets.scrub(`password is ${a}`)).toBe("password is [redacted]");
  });

  test("metal-hammer's construction: base64 of the bytes, cut to the length", () => {
    const bytes = new Uint8Array(16).fill(0xff);
    expect(generateConsolePassword(new SecretSet(), 16, () => bytes)).toBe("/////////////////////w==".slice(0, 16));
  });
});
