/**
 * Allocatable only when Alive, over the wire: the operator's allocation of a machine whose
 * config metal-boot never served is refused (no provisioning-event container, as upstream's
 * findWaitingMachine skips it: metal-stack/metal-apiserver@3f09705a
 * pkg/repository/machine-create.go:355-366); once metal-boot served the config, it has sent the
 * boot event as an infra client (EventService/Send over HTTPS with its own token), the machine is
 * Alive and the same allocation goes through. HTTPS on loopback; no root.
 */
import { describe, expect, test } from "bun:test";
import { BOOT_EVENT_MESSAGE } from "../../../lab/standins/boot-event.ts";
import { loopbackStandins } from "../../helpers/loopback-standins.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const openssl = Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0 ? undefined : "needs openssl";
prerequisites("the stand-ins' allocatable-when-Alive test", [openssl]);

const box = loopbackStandins("mh-alive-", openssl === undefined);
const UUID = "4c4c4544-0042-3510-8051-000000000036";

describe.skipIf(openssl !== undefined)("apiserver stand-in: allocatable only when Alive", () => {
  const st = () => box.st;
  const allocate = async () => {
    const r = await fetch(`${st().urls.api}/_standin/allocate`, {
      method: "POST",
      body: JSON.stringify({ uuid: UUID, allocation: { uuid: UUID, hostname: "h36" } }),
      tls: { ca: st().apiCa.pem },
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  test("a machine whose config was never fetched is not allocated; after metal-boot's boot event it is", async () => {
    st().machines.reset();
    expect(await allocate()).toEqual({
      status: 409,
      body: { error: `no machine available: machine ${UUID} has no provisioning event container (no event was ever sent for it)` },
    });
    expect(st().machines.allocations.has(UUID)).toBe(false);

    const config = await fetch(`${st().urls.boot}/config/${UUID}`, { tls: { ca: st().bootCa.pem } });
    expect(config.status).toBe(200);
    expect(st().metalBoot.sentEvents.filter((e) => e.uuid === UUID)).toEqual([{ uuid: UUID, ok: true }]);
    expect(st().machines.events.get(UUID)).toEqual({
      liveliness: "Alive",
      events: [{ time: expect.any(String), event: "MACHINE_PROVISIONING_EVENT_TYPE_PXE_BOOTING", message: BOOT_EVENT_MESSAGE }],
    });
    // metal-boot's own infra call is not one of the machines' calls.
    expect(st().calls.filter((c) => c.procedure.endsWith("/Send"))).toEqual([]);

    expect(await allocate()).toEqual({ status: 200, body: { ok: true } });
    expect(st().machines.allocations.get(UUID)).toEqual({ uuid: UUID, hostname: "h36" });
    expect(st().machines.allocationTries.map((t) => [t.liveliness, t.refused ?? "allocated"])).toEqual([
      [null, expect.stringContaining("no machine available")],
      ["Alive", "allocated"],
    ]);
  });

  test("a metal-boot that sends no boot event (pixie as it is) leaves the machine unallocatable", async () => {
    st().machines.reset();
    st().metalBoot.bootEvents = false;
    try {
      expect((await fetch(`${st().urls.boot}/config/${UUID}`, { tls: { ca: st().bootCa.pem } })).status).toBe(200);
      expect((await allocate()).status).toBe(409);
    } finally {
      st().metalBoot.bootEvents = true;
    }
  });
});
