import { describe, expect, test } from "bun:test";
import { EventSendResponse, RegisterRequest, SuperUserPasswordResponse, WaitResponse } from "../../src/api/messages.ts";
import { bootEvent } from "../../src/api/report-boot.ts";
import { validateAnswer } from "../../src/http/answer.ts";
import { agentErrorOf as badAnswer } from "../helpers/agent-error.ts";

describe("BootService and EventService messages", () => {
  test("proto3 answers omit defaults: an empty object is a valid answer", () => {
    expect(validateAnswer({}, SuperUserPasswordResponse, "x")).toEqual({ featureDisabled: false, superUserPassword: "" });
    expect(validateAnswer({}, EventSendResponse, "x")).toEqual({ events: 0, failed: [] });
    expect(validateAnswer({}, WaitResponse, "x")).toEqual({});
  });

  test("64-bit integers are accepted as protobuf JSON strings", () => {
    expect(validateAnswer({ events: "1" }, EventSendResponse, "x").events).toBe("1");
  });

  test("a wrong field type is bad_answer (exit 24) naming the field", () => {
    const e = badAnswer(() => validateAnswer({ events: "1", failed: [7] }, EventSendResponse, "apiserver Send answer"));
    expect(e.code).toBe("bad_answer");
    expect(e.exitCode).toBe(24);
    expect(e.message).toMatch(/^apiserver Send answer: field failed\[0\]: /);
  });

  test("a Register request with a bad nested field names the path", () => {
    const req = { uuid: "u", hardware: { memory: "1024", nics: [{ mac: "aa", name: 3 }] }, metalHammerVersion: "v", partition: "p" };
    expect(badAnswer(() => validateAnswer(req, RegisterRequest, "register")).message).toMatch(/^register: field hardware\.nics\[0\]\.name: /);
  });

  test("the boot event is an Alive event keyed by the uuid", () => {
    expect(bootEvent("u-1", "booted", new Date("2026-01-02T03:04:05Z"))).toEqual({ events: { "u-1": { time: "2026-01-02T03:04:05.000Z", event: "Alive", message: "booted" } } });
  });
});
