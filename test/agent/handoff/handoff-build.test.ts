import { describe, expect, test } from "bun:test";
import { MachineToken } from "../../../src/clients/metal-boot/machine-token.ts";
import type { Boot } from "../../../src/clients/metal-boot/boot.ts";
import { buildHandoff } from "../../../src/agent/handoff/handoff-build.ts";
import { HandoffDocument } from "../../../src/agent/handoff/document.ts";
import { handoffEnv } from "../../../src/agent/handoff/exec.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const token = `${b64({ alg: "HS256" })}.${b64({ sub: "u1", exp: 1767225600 })}.sig-sig-sig`;

const boot: Boot = {
  uuid: "u1",
  uuidSource: "product_uuid",
  partition: "fra",
  metalBootUrl: "https://[fd00::1]:8443/",
  apiserverUrl: new URL("https://api.example:8443"),
  apiserverCa: undefined,
  imageCacheUrl: new URL("https://images.example/"),
  ntpServers: ["fd00::123"],
  token: new MachineToken(token),
  tokenFile: "/run/metal/token",
};

describe("hand-off document", () => {
  test("network from the flow, servers, token path and stage timings", () => {
    const input = {
      stagesMs: { network: 900, boot: 950 },
      boot,
      apiserverVersion: "v0.5.0",
      network: {
        interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"], state: "ready" }],
        dns: { servers: ["2001:db8::53"], search: ["example"] },
        timingsMs: { "eth0.dad.done": 850 },
      },
    };
    const doc = buildHandoff(input, new Date("2026-01-01T00:00:00Z"));
    expect(HandoffDocument.parse(doc)).toEqual(doc);
    expect(doc).toEqual({
      version: 2,
      writtenAt: "2026-01-01T00:00:00.000Z",
      uuid: "u1",
      uuidSource: "product_uuid",
      partition: "fra",
      network: {
        interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", state: "ready", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"] }],
        dns: { servers: ["2001:db8::53"], search: ["example"] },
        timingsMs: { "eth0.dad.done": 850 },
      },
      metalBootUrl: "https://[fd00::1]:8443/",
      apiserverUrl: "https://api.example:8443/",
      apiserverCa: null,
      apiserverVersion: "v0.5.0",
      imageCacheUrl: "https://images.example/",
      ntpServers: ["fd00::123"],
      tokenFile: "/run/metal/token",
      tokenExpiresAt: "2026-01-01T00:00:00.000Z",
      timings: { stagesMs: { network: 900, boot: 950 } },
    });
  });

  test("without a network stage result the network is null; the token never appears", () => {
    const doc = buildHandoff({ stagesMs: {}, boot: { ...boot, imageCacheUrl: undefined }, network: undefined, apiserverVersion: undefined }, new Date(0));
    expect(doc.network).toBeNull();
    expect([doc.imageCacheUrl, doc.apiserverVersion]).toEqual([null, null]);
    expect(JSON.stringify(doc)).not.toContain("sig-sig-sig");
  });

  test("the next stage's environment carries METAL_HANDOFF_FILE exactly once", () => {
    expect(handoffEnv({ PATH: "/bin", METAL_HANDOFF_FILE: "/old", X: undefined }, "/run/metal/handoff.json")).toEqual(["PATH=/bin", "METAL_HANDOFF_FILE=/run/metal/handoff.json"]);
  });
});
