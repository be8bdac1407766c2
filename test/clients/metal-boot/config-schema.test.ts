import { describe, expect, test } from "bun:test";
import { MetalConfigSchema, secretsIn } from "../../../src/clients/metal-boot/config-schema.ts";
import { parseAnswer } from "../../../src/clients/http/answer.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { agentErrorOf } from "../../helpers/agent-error.ts";

/** pixie's MetalConfig as handleConfig marshals it (metal-stack/pixie@8b0f1da5 api/api.go:4, pixiecore/http.go:232). */
const good = {
  debug: false,
  metal_apiserver_url: "https://[fd00::10]:8443",
  metal_apiserver_token_for_hammer: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln",
  metal_api_url: "https://old-api.example/",
  pixie_api_url: "https://pixie.example/",
  ntp_servers: ["2001:db8::123", "ntp.example"],
  partition: "fra-equ01",
  logging: { endpoint: "https://loki.example/", basic_auth: { user: "u", password: "loki-password-xyz" }, log_type: "loki" },
};
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

const fail = (v: unknown) => agentErrorOf(() => parseAnswer(enc(v), MetalConfigSchema, "metal-boot answer"));

describe("metal-boot config answer (pixie MetalConfig)", () => {
  test("pixie's shape parses; unknown fields are ignored; the extensions are optional", () => {
    const c = parseAnswer(enc({ ...good, some_future_field: 1 }), MetalConfigSchema, "x");
    expect(c.metal_apiserver_url.href).toBe("https://[fd00::10]:8443/");
    expect(c.partition).toBe("fra-equ01");
    expect(c.ca).toBeUndefined();
    expect(c.image_cache_url).toBeUndefined();
    expect("some_future_field" in c).toBe(false);
  });

  test("Go's omitempty: a missing partition, ntp_servers null, no logging", () => {
    const { partition: _p, logging: _l, ...rest } = good;
    const c = parseAnswer(enc({ ...rest, ntp_servers: null }), MetalConfigSchema, "x");
    expect([c.partition, c.ntp_servers, c.logging]).toEqual(["", [], undefined]);
  });

  test("the extensions: ca (PEM) and image_cache_url, snake_case", () => {
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const c = parseAnswer(enc({ ...good, ca: pem, image_cache_url: "https://images.example/" }), MetalConfigSchema, "x");
    expect([c.ca, c.image_cache_url?.href]).toEqual([pem, "https://images.example/"]);
  });

  test("each bad field is named, exit code 24", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, metal_apiserver_url: "ftp://x" }, "field metal_apiserver_url: expected an http(s) URL"],
      [{ ...good, ntp_servers: ["bad host!"] }, "field ntp_servers[0]: expected an IP address or host name"],
      [{ ...good, ca: "not a pem" }, "field ca: expected a PEM certificate"],
      [{ ...good, image_cache_url: "nope" }, "field image_cache_url: expected an http(s) URL"],
    ];
    for (const [v, msg] of cases) {
      const e = fail(v);
      expect(e.exitCode).toBe(24);
      expect(e.message).toContain(msg);
    }
  });

  test("a missing token is named without quoting anything", () => {
    const { metal_apiserver_token_for_hammer: _t, ...rest } = good;
    expect(fail(rest).message).toMatch(/^metal-boot answer: field metal_apiserver_token_for_hammer: /);
  });

  test("a body that is not JSON gives its size, not its text", () => {
    let e: unknown;
    try {
      parseAnswer(new TextEncoder().encode("{token: secret-value-123"), MetalConfigSchema, "metal-boot answer");
    } catch (x) {
      e = x;
    }
    expect((e as AgentError).message).toBe("metal-boot answer: not valid JSON (24 bytes)");
  });

  test("the token and the logging password are registered as secrets before validation, even when validation fails", () => {
    const secrets = new SecretSet();
    try {
      parseAnswer(enc({ ...good, metal_apiserver_url: 5 }), MetalConfigSchema, "x", (raw) => secretsIn(raw).forEach((s) => secrets.add(s)));
    } catch {}
    expect(secrets.scrub(`token ${good.metal_apiserver_token_for_hammer} pw loki-password-xyz`)).toBe("token [redacted] pw [redacted]");
  });

  test("oci_configs (pixie PR #40): registry -> username/password; absent is empty; each password a secret before validation", () => {
    const oci = {
      "https://registry.example.com": { username: "puller", password: "oci-password-4f1e" },
      "ghcr.io/metal-stack": { username: "bot", password: "ghcr-password-9a2b" },
    };
    expect(MetalConfigSchema.parse({ ...good, oci_configs: oci }).oci_configs).toEqual(oci);
    expect(MetalConfigSchema.parse(good).oci_configs).toEqual({});
    const secrets = new SecretSet();
    try {
      parseAnswer(enc({ ...good, oci_configs: oci, metal_apiserver_url: 5 }), MetalConfigSchema, "x", (raw) => secretsIn(raw).forEach((s) => secrets.add(s)));
    } catch {}
    expect(secrets.scrub("a oci-password-4f1e b ghcr-password-9a2b")).toBe("a [redacted] b [redacted]");
  });
});
