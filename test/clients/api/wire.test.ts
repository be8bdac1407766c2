/** protojson through the generated code: what the agent puts on the wire and how it reads answers. */
import { describe, expect, test } from "bun:test";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { connectError } from "../../../src/clients/api/connect-error.ts";
import { EventReporter, eventTypeName } from "../../../src/clients/api/event-reporter.ts";
import { decoder, encodeRequest } from "../../../src/clients/api/rpc.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { MachineProvisioningEventType } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { BootServiceRegisterRequestSchema, BootServiceWaitResponseSchema } from "../../../src/gen/metalstack/infra/v2/boot_pb.ts";
import { EventServiceSendRequestSchema } from "../../../src/gen/metalstack/infra/v2/event_pb.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

describe("protojson on the wire", () => {
  test("lowerCamelCase names, uint64 as strings, enum values by their full names", () => {
    const req = encodeRequest(BootServiceRegisterRequestSchema, {
      uuid: "u",
      metalHammerVersion: "v",
      hardware: { memory: 1n << 40n, nics: [{ mac: "52:54:00:12:34:56", name: "eth0", speed: 25_000_000_000n }] },
      bios: {},
    });
    expect(req).toEqual({
      uuid: "u",
      hardware: { memory: "1099511627776", nics: [{ mac: "52:54:00:12:34:56", name: "eth0", speed: "25000000000" }] },
      bios: {},
      metalHammerVersion: "v",
    });
    const ev = encodeRequest(EventServiceSendRequestSchema, {
      events: { u: { time: timestampFromDate(new Date("2026-01-01T00:00:00Z")), event: MachineProvisioningEventType.ALIVE, message: "m" } },
    });
    expect(ev).toEqual({ events: { u: { time: "2026-01-01T00:00:00Z", event: "MACHINE_PROVISIONING_EVENT_TYPE_ALIVE", message: "m" } } });
    expect(eventTypeName(MachineProvisioningEventType.PHONED_HOME)).toBe("MACHINE_PROVISIONING_EVENT_TYPE_PHONED_HOME");
  });

  test("answers: unknown fields and enum names are ignored (as the server's DiscardUnknown); a wrong type is a bad_answer", () => {
    const m = decoder(BootServiceWaitResponseSchema)(
      { allocation: { hostname: "w1", futureField: 1, allocationType: "MACHINE_ALLOCATION_TYPE_NEW_KIND", image: { id: "i", url: "https://x/y" } } },
      "Wait message",
    );
    expect([m.allocation?.hostname, m.allocation?.image?.url, m.allocation?.allocationType]).toEqual(["w1", "https://x/y", 0]);
    const e = (() => {
      try {
        decoder(BootServiceWaitResponseSchema)({ allocation: { hostname: 5 } }, "Wait message");
      } catch (x) {
        return x as AgentError;
      }
    })();
    expect(e?.code).toBe("bad_answer");
    expect(e?.message).toStartWith("Wait message: not a metalstack.infra.v2.BootServiceWaitResponse:");
  });
});

describe("events, best effort", () => {
  const setup = (fail: (n: number) => AgentError | undefined) => {
    const lines: Record<string, unknown>[] = [];
    let n = 0;
    const api = {
      unary: async () => {
        const e = fail(n++);
        if (e) throw e;
        return { message: { events: 1n, failed: [] }, latencyMs: 1, address: undefined, attempts: 1 } as never;
      },
    };
    const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l)), secrets: new SecretSet() });
    return { r: new EventReporter(api, "u1", log), lines, calls: () => n };
  };

  test("unimplemented turns events off with one info line; no more calls", async () => {
    const { r, lines, calls } = setup(() => connectError("apiserver EventService/Send", "unimplemented", "x"));
    expect(await r.send(MachineProvisioningEventType.ALIVE, "a")).toBe("disabled");
    expect(await r.send(MachineProvisioningEventType.WAITING, "b")).toBe("off");
    expect(calls()).toBe(1);
    expect(lines.map((l) => [l.event, l.level])).toEqual([["provision.event.off", 30]]);
  });

  test("permission_denied (upstream Send is INFRA_ROLE only) turns events off; the code comes from the ConnectError, not the details", async () => {
    const denied = setup(() => connectError("apiserver EventService/Send", "permission_denied", "not allowed"));
    expect(await denied.r.send(MachineProvisioningEventType.ALIVE, "a")).toBe("disabled");
    expect(denied.lines.map((l) => [l.event, l.connectCode])).toEqual([["provision.event.off", "permission_denied"]]);
    const lookalike = setup((n) => (n === 0 ? new AgentError("api_error", "x", { connectCode: "permission_denied" }) : undefined));
    expect(await lookalike.r.send(MachineProvisioningEventType.ALIVE, "a")).toBe("failed");
    expect(await lookalike.r.send(MachineProvisioningEventType.WAITING, "b")).toBe("sent");
  });

  test("any other failure is a warn line and the next event is tried; never a throw", async () => {
    const { r, lines, calls } = setup((n) => (n === 0 ? new AgentError("unreachable", "apiserver down", {}) : undefined));
    expect(await r.send(MachineProvisioningEventType.PREPARING, "a")).toBe("failed");
    expect(await r.send(MachineProvisioningEventType.REGISTERING, "b")).toBe("sent");
    expect(calls()).toBe(2);
    expect(lines.map((l) => [l.event, l.level])).toEqual([
      ["provision.event", 40],
      ["provision.event", 30],
    ]);
  });
});
