import { describe, expect, test } from "bun:test";
import { decodeHandoff, encodeHandoff, type HandoffDocument } from "../../../src/agent/handoff/document.ts";

const FILE = "/run/metal/handoff.json";

const doc: HandoffDocument = {
  version: 2,
  writtenAt: "2026-01-01T00:00:00.000Z",
  uuid: "00000000-6d68-6c00-0000-000000000001",
  uuidSource: "cmdline",
  partition: "fra",
  network: {
    interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", state: "ready", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"] }],
    dns: { servers: ["2001:db8::53"], search: [] },
    timingsMs: { "eth0.dad.done": 850 },
  },
  metalBootUrl: "https://[fd00::1]:8443/",
  apiserverUrl: "https://api.example:8443/",
  apiserverCa: null,
  apiserverVersion: null,
  imageCacheUrl: null,
  ntpServers: [],
  tokenFile: "/run/metal/token",
  tokenExpiresAt: null,
  timings: { stagesMs: { network: 900 } },
};

const withField = (path: (string | number)[], value: unknown): string => {
  const copy = JSON.parse(JSON.stringify(doc));
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  const last = path.at(-1)!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return JSON.stringify(copy);
};

describe("handoff.json codec", () => {
  test("encode writes indented JSON with a final newline; decode reads it back equal", () => {
    const text = encodeHandoff(doc);
    expect(text.startsWith('{\n  "version": 2,\n  "writtenAt": "2026-01-01T00:00:00.000Z",\n')).toBe(true);
    expect(text.endsWith("\n}\n")).toBe(true);
    expect(decodeHandoff(text, FILE)).toEqual({ ok: true, doc });
  });

  test("text that is not JSON names the file", () => {
    const r = decodeHandoff("{ not json", FILE);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.field).toBe("(document)");
      expect(r.message).toStartWith(`${FILE}: not JSON (`);
    }
  });

  test("another version (or none) names the field and both versions", () => {
    expect(decodeHandoff(withField(["version"], 1), FILE)).toEqual({
      ok: false,
      field: "version",
      message: `${FILE}: field version: expected 2 (this agent's hand-off version), got 1`,
    });
    expect(decodeHandoff("[]", FILE)).toEqual({ ok: false, field: "version", message: `${FILE}: field version: expected 2 (this agent's hand-off version), got null` });
  });

  test("a missing or mistyped field is named by its JSON path", () => {
    expect(decodeHandoff(withField(["tokenFile"], undefined), FILE)).toEqual({
      ok: false,
      field: "tokenFile",
      message: `${FILE}: field tokenFile: Invalid input: expected string, received undefined`,
    });
    expect(decodeHandoff(withField(["network", "interfaces", 0, "mac"], 5), FILE)).toEqual({
      ok: false,
      field: "network.interfaces[0].mac",
      message: `${FILE}: field network.interfaces[0].mac: Invalid input: expected string, received number`,
    });
    const r = decodeHandoff(withField(["uuidSource"], "bios"), FILE);
    expect(r.ok ? undefined : r.field).toBe("uuidSource");
  });
});
