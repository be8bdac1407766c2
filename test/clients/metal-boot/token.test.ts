import { describe, expect, test } from "bun:test";
import { inspect } from "node:util";
import { MachineToken } from "../../../src/clients/metal-boot/machine-token.ts";
import { describeToken } from "../../../src/clients/metal-boot/token.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const jwt = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "machine-1", iss: "metal", exp: 1767225600, iat: 1766966400 })}.c2lnbmF0dXJl`;

describe("token metadata", () => {
  test("a JWT shows subject, issuer and times, decoded", () => {
    expect(describeToken(jwt)).toEqual({
      kind: "jwt",
      length: jwt.length,
      subject: "machine-1",
      issuer: "metal",
      expiresAt: "2026-01-01T00:00:00.000Z",
      issuedAt: "2025-12-29T00:00:00.000Z",
    });
  });

  test("anything else is opaque: only its length", () => {
    expect(describeToken("abcdefghijklmnopqrstuvwxyz")).toEqual({ kind: "opaque", length: 26 });
    expect(describeToken("a.b.c")).toEqual({ kind: "opaque", length: 5 });
  });

  test("the metadata never contains the token or its signature", () => {
    const s = JSON.stringify(describeToken(jwt));
    expect(s).not.toContain("c2lnbmF0dXJl");
    expect(s).not.toContain(jwt);
  });

  test("the in-memory holder prints as [redacted] in every way it can be printed", () => {
    const t = new MachineToken(jwt);
    expect(String(t)).toBe("[redacted]");
    expect(JSON.stringify({ t })).toBe('{"t":"[redacted]"}');
    expect(inspect(t)).not.toContain(jwt);
    expect(`${t}`).toBe("[redacted]");
    expect(t.reveal()).toBe(jwt);
  });
});
