import { describe, expect, test } from "bun:test";
import { DEFAULT_PLANNED_REBOOT, planRebootSetting } from "../../../src/config/planned-reboot.ts";
import { planReboot, plannedRebootAt, waitBound } from "../../../src/ops/reboot/planned.ts";

const H = 3_600_000;

describe("the planned reboot", () => {
  test("default as upstream: 24 h plus up to 24 h", () => {
    expect(planRebootSetting(undefined)).toEqual(DEFAULT_PLANNED_REBOOT);
    expect(DEFAULT_PLANNED_REBOOT).toEqual({ boundMs: 24 * H, jitterMs: 24 * H });
  });

  test("the deadline is start + bound + random x jitter, within [bound, bound + jitter)", () => {
    const s = { boundMs: 24 * H, jitterMs: 24 * H };
    expect(plannedRebootAt(1000, s, () => 0)).toBe(1000 + 24 * H);
    expect(plannedRebootAt(1000, s, () => 0.5)).toBe(1000 + 36 * H);
    expect(plannedRebootAt(1000, s, () => 0.999999999)).toBeLessThan(1000 + 48 * H);
    expect(plannedRebootAt(1000, s, () => 1)).toBeLessThan(1000 + 48 * H);
  });

  test("a fleet of machines spreads its reboots over the jitter", () => {
    const s = { boundMs: 24 * H, jitterMs: 24 * H };
    const hours = new Set(Array.from({ length: 200 }, () => Math.floor((plannedRebootAt(0, s, Math.random) - 24 * H) / H)));
    expect(hours.size).toBeGreaterThan(15);
  });

  test("METAL_PLANNED_REBOOT values", () => {
    expect(planRebootSetting("12h")).toEqual({ boundMs: 12 * H, jitterMs: 0 });
    expect(planRebootSetting("30m+10m")).toEqual({ boundMs: 30 * 60_000, jitterMs: 10 * 60_000 });
    expect(planRebootSetting("off")).toBeUndefined();
    for (const bad of ["", "soon", "10s", "24h+", "8d", "1h+5s", null]) expect(planRebootSetting(bad)).toBe("invalid");
  });

  test("the wait ends at whichever comes first: METAL_WAIT_TIMEOUT or the planned reboot", () => {
    expect(waitBound(0, 24 * H, 30 * H)).toEqual({ boundMs: 24 * H, endsBy: "wait_timeout" });
    expect(waitBound(0, 72 * H, 30 * H)).toEqual({ boundMs: 30 * H, endsBy: "planned_reboot" });
    expect(waitBound(0, 72 * H, undefined)).toEqual({ boundMs: 72 * H, endsBy: "wait_timeout" });
  });

  test("planned once for a wait: its time and the reason the due line gives; off: none", () => {
    const start = Date.parse("2026-12-01T00:00:00Z");
    expect(planReboot(start, { boundMs: 24 * H, jitterMs: 24 * H }, () => 0.25)).toEqual({
      boundMs: 24 * H,
      jitterMs: 24 * H,
      atMs: start + 30 * H,
      at: "2026-12-02T06:00:00.000Z",
      setting: "METAL_PLANNED_REBOOT=24h+24h",
      reason: "no allocation came before the planned reboot (METAL_PLANNED_REBOOT=24h+24h): rebooting to pick up the current agent",
    });
    expect(planReboot(start, { boundMs: 30 * 60_000, jitterMs: 0 }, () => 0.9)).toMatchObject({ at: "2026-12-01T00:30:00.000Z", setting: "METAL_PLANNED_REBOOT=30m+0s" });
    expect(planReboot(start, undefined, () => 0.5)).toBeUndefined();
  });
});
