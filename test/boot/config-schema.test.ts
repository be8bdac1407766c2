import { describe, expect, test } from "bun:test";
import { BootConfigSchema } from "../../src/boot/config-schema.ts";
import { parseAnswer } from "../../src/http/answer.ts";
import { SecretSet } from "../../src/log/redact.ts";
import { AgentError } from "../../src/errors.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

const good = {
  partition: "fra-equ01",
  apiserverUrl: "https://[fd00::10]:8443",
  token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln",
  ntpServers: ["2001:db8::123", "ntp.example"],
  imageCacheUrl: "https://images.example/",
  imagePath: "debian/12/img.tar.lz4",
};
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

const fail = (v: unknown) => agentErrorOf(() => parseAnswer(enc(v), BootConfigSchema, "metal-boot answer"));

describe("metal-boot config answer", () => {
  test("the documented example parses; optional fields default", () => {
    const c = parseAnswer(enc(good), BootConfigSchema, "x");
    expect(c.apiserverUrl.href).toBe("https://[fd00::10]:8443/");
    expect(c.ca).toBeUndefined();
    expect(c.logging).toEqual({});
  });

  test("each bad field is named, exit code 24", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, apiserverUrl: "ftp://x" }, "field apiserverUrl: expected an http(s) URL"],
      [{ ...good, partition: "" }, "field partition: expected a partition id"],
      [{ ...good, ntpServers: ["bad host!"] }, "field ntpServers[0]: expected an IP address or host name"],
      [{ ...good, ca: "not a pem" }, "field ca: expected a PEM certificate"],
      [{ ...good, imagePath: "../etc/passwd" }, "field imagePath: "],
      [{ ...good, logging: { level: "loud" } }, "field logging.level: "],
    ];
    for (const [v, msg] of cases) {
      const e = fail(v);
      expect(e.exitCode).toBe(24);
      expect(e.message).toContain(msg);
    }
  });

  test("a missing token is named without quoting anything", () => {
    const { token: _t, ...rest } = good;
    expect(fail(rest).message).toMatch(/^metal-boot answer: field token: /);
  });

  test("a body that is not JSON gives its size, not its text", () => {
    let e: unknown;
    try {
      parseAnswer(new TextEncoder().encode("{token: secret-value-123"), BootConfigSchema, "metal-boot answer");
    } catch (x) {
      e = x;
    }
    expect((e as AgentError).message).toBe("metal-boot answer: not valid JSON (24 bytes)");
  });

  test("the token is registered as a secret before validation, even when validation fails", () => {
    const secrets = new SecretSet();
    try {
      parseAnswer(enc({ ...good, partition: 5 }), BootConfigSchema, "x", (raw) => secrets.add((raw as { token: string }).token));
    } catch {}
    expect(secrets.scrub(`token ${good.token}`)).toBe("token [redacted]");
  });
});
