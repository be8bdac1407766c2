/**
 * `metal-hammer bmc [--json]`: what the built-in flow reads from the BMC in-band before
 * Register (address, MAC, firmware, FRU, the vendor's user ids). A debug shell command:
 * it only reads (writes no user, prints no password) and talks to no server.
 */
import type { Command } from "commander";
import { bmcDevicePresent } from "../machine/bmc/device.ts";
import { readBmc } from "../machine/bmc/discover.ts";
import { inBandIpmitool } from "../machine/bmc/ipmitool.ts";
import { bmcVendor } from "../machine/bmc/vendor.ts";
import type { Context } from "../platform/io/context.ts";
import { escapeUntrusted } from "../platform/log/escape.ts";
import { printRecord } from "./print.ts";

export function registerBmc(program: Command, ctx: Context): void {
  program
    .command("bmc")
    .description("show the BMC as Register reports it (in-band ipmitool: lan print, bmc info, fru); read only")
    .option("--json", "print as one JSON object")
    .option("--sysfs <dir>", "sysfs root (DMI board_vendor)", "/sys")
    .option("--dev <dir>", "device directory (/dev/ipmi*)", "/dev")
    .action(async (opts: { json?: boolean; sysfs: string; dev: string }) => {
      const boardVendor = (
        await Bun.file(`${opts.sysfs}/class/dmi/id/board_vendor`)
          .text()
          .catch(() => "")
      ).trim();
      const vendor = bmcVendor(boardVendor);
      const users = vendor
        ? { metalUser: `${vendor.metal.name} (id ${vendor.metal.id})`, superUser: `${vendor.superUser.name} (id ${vendor.superUser.id})` }
        : { metalUser: null, superUser: null };
      if (!(await bmcDevicePresent(opts.dev))) {
        printRecord(ctx, { present: false, boardVendor, note: `no /dev/ipmi* in ${opts.dev}: no BMC (or ipmi_si/ipmi_devintf not loaded)` }, opts.json === true);
        return;
      }
      const r = await readBmc(inBandIpmitool());
      const view = {
        present: true,
        address: r.lan.ip ?? null,
        mac: r.lan.mac ?? null,
        ipSource: r.lan.ipSource ?? null,
        firmware: r.firmwareRevision ?? null,
        boardVendor,
        vendor: vendor?.name ?? null,
        ...users,
        fru: r.fru,
      };
      printRecord(ctx, opts.json ? { ...view, notes: r.notes } : view, opts.json === true);
      if (!opts.json) for (const n of r.notes) ctx.io.out(`note: ${escapeUntrusted(n)}\n`);
    });
}
