import { describe, expect, test } from "bun:test";
import { MachineToken } from "../../src/boot/machine-token.ts";
import type { BootSummary, FlowState } from "../../src/flow/state.ts";
import { buildHandoff } from "../../src/handoff/build.ts";
import { HandoffDocument } from "../../src/handoff/document.ts";
import { handoffEnv } from "../../src/handoff/exec.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const token = `${b64({ alg: "HS256" })}.${b64({ sub: "u1", exp: 1767225600 })}.sig-sig-sig`;

const boot: BootSummary = {
  uuid: "u1",
  uuidSource: "product_uuid",
  partition: "fra",
  metalBootUrl: "https://[fd00::1]:8443/",
  apiserverUrl: new URL("https://api.example:8443"),
  imageCacheUrl: new URL("https://images.example/"),
  imagePath: "debian/12/img.tar.lz4",
  ntpServers: ["fd00::123"],
  token: new MachineToken(token),
  tokenFile: "/run/metal/token",
  latencyMs: 5,
  address: "fd00::1",
};

describe("hand-off document", () => {
  test("network from the flow state, servers, token path and stage timings", () => {
    const state: FlowState = {
      stageTimesMs: { network: 900, boot: 950 },
      boot,
      network: {
        interfaces: [{ name: "eth0", mac: "52:54:00:12:34:56", addresses: ["2001:db8::5054:ff:fe12:3456/64"], defaultRouters: ["fe80::1"], state: "ready" }],
        dns: { servers: ["2001:db8::53"], search: ["example"] },
        timingsMs: { "eth0.dad.done": 850 },
      },
      image: { url: "https://images.example/debian/12/img.tar.lz4", size: 10, checksum: "md5:x", latencyMs: 3, address: undefined },
    };
    const doc = buildHandoff(state, boot, new Date("2026-01-01T00:00:00Z"));
    expect(HandoffDocument.parse(doc)).toEqual(doc);
    expect(doc).toEqual({
      version: 1,
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
      imageCacheUrl: "https://images.example/",
      imageUrl: "https://images.example/debian/12/img.tar.lz4",
      ntpServers: ["fd00::123"],
      tokenFile: "/run/metal/token",
      tokenExpiresAt: "2026-01-01T00:00:00.000Z",
      timings: { stagesMs: { network: 900, boot: 950 } },
    });
  });

  test("without a network stage result the network is null; the token never appears", () => {
    const doc = buildHandoff({ stageTimesMs: {} }, boot, new Date(0));
    expect(doc.network).toBeNull();
    expect(doc.imageUrl).toBeNull();
    expect(JSON.stringify(doc)).not.toContain("sig-sig-sig");
  });

  test("the next stage's environment carries METAL_HANDOFF_FILE exactly once", () => {
    expect(handoffEnv({ PATH: "/bin", METAL_HANDOFF_FILE: "/old", X: undefined }, "/run/metal/handoff.json")).toEqual(["PATH=/bin", "METAL_HANDOFF_FILE=/run/metal/handoff.json"]);
  });
});
