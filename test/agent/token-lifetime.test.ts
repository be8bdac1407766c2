/** The boot stage's warning: the machine token expires before the wait's longest bound. */
import { expect, test } from "bun:test";
import { tokenOutlived } from "../../src/agent/token-lifetime.ts";

const NOW = Date.parse("2026-12-05T12:00:00.000Z");
const H = 3_600_000;
const PIXIE = "2026-12-08T12:00:00.000Z"; // 3 days, as pixie mints it

test("a 3-day token and METAL_WAIT_TIMEOUT=7d with the planned reboot off: the wait outlives it, ended by METAL_WAIT_TIMEOUT", () => {
  expect(tokenOutlived(NOW, PIXIE, 7 * 24 * H, undefined)).toEqual({
    expiresAt: PIXIE,
    waitEndsBy: "2026-12-12T12:00:00.000Z",
    endsBy: "METAL_WAIT_TIMEOUT=168h",
    message:
      "the machine token expires at 2026-12-08T12:00:00.000Z, before the wait for an allocation may end (2026-12-12T12:00:00.000Z, by METAL_WAIT_TIMEOUT=168h): it is renewed from metal-boot when the apiserver refuses it",
  });
});

test("the planned reboot's latest (bound + whole jitter) counts when it comes before METAL_WAIT_TIMEOUT", () => {
  expect(tokenOutlived(NOW, PIXIE, 7 * 24 * H, { boundMs: 48 * H, jitterMs: 48 * H })).toMatchObject({
    waitEndsBy: "2026-12-09T12:00:00.000Z",
    endsBy: "the planned reboot (METAL_PLANNED_REBOOT=48h+48h)",
  });
});

test("the defaults (24h wait, 24h+24h reboot) end within pixie's 3 days: no warning; nor without a known expiry", () => {
  expect(tokenOutlived(NOW, PIXIE, 24 * H, { boundMs: 24 * H, jitterMs: 24 * H })).toBeUndefined();
  expect(tokenOutlived(NOW, PIXIE, 72 * H, undefined)).toBeUndefined();
  expect(tokenOutlived(NOW, undefined, 7 * 24 * H, undefined)).toBeUndefined();
  expect(tokenOutlived(NOW, "not a date", 7 * 24 * H, undefined)).toBeUndefined();
});
