import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

/** A presigned-looking boot URL and an unknown parameter holding a URL with userinfo and a token. */
const CMDLINE =
  "METAL_BOOT_URL=https://boot.example/?token=s3cr3t-boot-token&X-Amz-Signature=abcdef0123456789&region=eu " +
  "x.mirror=https://user:pa55word@cache.example/img?sig=zzzzzzzz&keep=1";

describe("metal-hammer config", () => {
  for (const json of [false, true]) {
    test(`${json ? "--json" : "text"}: secret URL parameters and userinfo are scrubbed as in a log line; the rest is kept`, async () => {
      const c = captureContext();
      expect(await runCli(["config", "--cmdline", CMDLINE, ...(json ? ["--json"] : [])], c.ctx)).toBe(0);
      const out = c.out();
      for (const secret of ["s3cr3t-boot-token", "abcdef0123456789", "pa55word", "zzzzzzzz"]) expect(out).not.toContain(secret);
      expect(out).toContain("https://boot.example/?token=%5Bredacted%5D&X-Amz-Signature=%5Bredacted%5D&region=eu");
      expect(out).toContain("https://%5Bredacted%5D@cache.example/img?sig=%5Bredacted%5D&keep=1");
      if (json) expect(JSON.parse(out).metalBootUrl).toBe("https://boot.example/?token=%5Bredacted%5D&X-Amz-Signature=%5Bredacted%5D&region=eu");
      else expect(out).toMatch(/^metalBootUrl\s+https:\/\/boot\.example\/\?token=%5Bredacted%5D/m);
    });
  }

  test("an escape sequence in a value reaches the terminal escaped, not as a raw ESC", async () => {
    const c = captureContext();
    expect(await runCli(["config", "--cmdline", "METAL_BOOT_URL=https://boot.example/ console=tty\u001b[2Jx"], c.ctx)).toBe(0);
    expect(c.out()).not.toContain("\u001b");
    expect(c.out()).toMatch(/^console\s+tty\\x1b\[2Jx$/m);
  });
});
