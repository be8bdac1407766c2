import { describe, expect, test } from "bun:test";
import { SecretSet, REDACTED, isSecretKey, redactFields, redactUrl } from "../../../src/platform/log/redact.ts";
import { createLogger, formatText, logEvent, type LogFormat } from "../../../src/platform/log/logger.ts";
import { AgentError } from "../../../src/platform/errors.ts";

// A realistic machine token: a JWT as the apiserver issues them.
const TOKEN =
  "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0YzRjNDU0NC0wMDQyIiwicm9sZSI6Ik1BQ0hJTkVfUk9MRV9FRElUT1IiLCJleHAiOjE3OTk5OTk5OTl9.MEUCIQDx3k1Zs0q-pl8J_3mQ2vY4rXbHkJcG1fT6";

function logged(format: LogFormat, body: (log: ReturnType<typeof createLogger>, secrets: SecretSet) => void): string {
  let text = "";
  const secrets = new SecretSet();
  const log = createLogger({ level: "trace", format, write: (l) => void (text += l), secrets });
  body(log, secrets);
  return text;
}

describe("secret-named fields", () => {
  test("names that hold secrets", () => {
    for (const k of [
      "token",
      "machineToken",
      "password",
      "consolePassword",
      "superUserPassword",
      "secret",
      "clientSecret",
      "key",
      "privateKey",
      "apiKey",
      "ssh_key",
      "authorization",
      "Authorization",
      "cookie",
    ]) {
      expect(isSecretKey(k)).toBe(true);
    }
  });
  test("names that only describe one, or are unrelated", () => {
    for (const k of ["tokenFile", "tokenPath", "tokenExpiry", "tokenSubject", "event", "keyboard", "monkey", "uuid", "mac"]) {
      expect(isSecretKey(k)).toBe(false);
    }
  });
  test("nested objects, arrays, Headers and Maps are walked", () => {
    const headers = new Headers({ Authorization: `Bearer ${TOKEN}`, Accept: "application/json" });
    const out = redactFields({ a: { b: [{ password: "hunter22" }] }, headers, m: new Map([["token", TOKEN]]) });
    expect(JSON.stringify(out)).not.toContain("hunter22");
    expect(JSON.stringify(out)).not.toContain(TOKEN);
    expect(JSON.stringify(out)).toContain("application/json");
  });
  test("URLs lose userinfo and secret query parameters", () => {
    expect(redactUrl(new URL(`https://u:p@[fd00::1]/x?token=${TOKEN}&a=1`))).toBe(`https://${encodeURIComponent(REDACTED)}@[fd00::1]/x?token=%5Bredacted%5D&a=1`);
  });
});

describe("a real token never reaches the log output", () => {
  for (const format of ["json", "text"] as const) {
    test(`through every logger path (${format})`, () => {
      const text = logged(format, (log, secrets) => {
        secrets.add(TOKEN);
        log.info({ event: "boot.config", token: TOKEN }, "field");
        log.info({ event: "boot.config", nested: { deeper: { machineToken: TOKEN } } }, "nested field");
        log.info({ event: "boot.config" }, `message with ${TOKEN} inside`);
        log.info({ event: "boot.config", note: `value under a harmless name: ${TOKEN}` });
        log.info({ event: "api.version", headers: { authorization: `Bearer ${TOKEN}` } }, "headers");
        log.warn({ event: "http.retry", err: new Error(`request failed for ${TOKEN}`) }, "error object");
        log.error({ event: "agent.fatal", err: new AgentError("auth", `refused: Bearer ${TOKEN}`, { token: TOKEN }) });
        log.debug({ event: "api.version", list: [TOKEN, { password: TOKEN }] });
        log.info({ event: "agent.config", bindings: { token: TOKEN, who: "nested bindings" } }, "nested bindings");
        log.info({ event: "http.retry", url: new URL(`https://[fd00::1]/config?token=${TOKEN}`) });
        logEvent(log, "boot.config", { token: TOKEN, tokenExpiry: "2026-12-01" }, `got ${TOKEN}`);
      });
      expect(text.split("\n").filter(Boolean).length).toBe(11);
      expect(text).not.toContain(TOKEN);
      // No recognisable part of it either (header, payload, signature).
      for (const part of TOKEN.split(".")) expect(text).not.toContain(part);
      expect(text).toContain(REDACTED);
      expect(text).toContain("2026-12-01");
    });
  }

  test("bearer credentials are cut even when the secret was never registered", () => {
    const text = logged("json", (log) => log.info({ event: "api.version" }, "Authorization: Bearer abc.def.ghi-unregistered"));
    expect(text).not.toContain("abc.def.ghi-unregistered");
  });
});

describe("text format", () => {
  test("one compact line per record with event, message and fields", () => {
    const line = formatText({ level: 30, time: "2026-11-29T18:34:09.123Z", event: "net.link.up", msg: "link up", ifname: "eth0", flags: ["UP"] });
    expect(line).toBe('18:34:09.123 INFO  net.link.up link up ifname=eth0 flags=["UP"]\n');
  });
  test("json lines carry the event name", () => {
    const text = logged("json", (log) => logEvent(log, "net.dad.done", { ifname: "eth0", address: "2001:db8::1" }));
    const rec = JSON.parse(text);
    expect(rec.event).toBe("net.dad.done");
    expect(rec.ifname).toBe("eth0");
    expect(rec.level).toBe(30);
    expect(typeof rec.time).toBe("string");
  });
});
