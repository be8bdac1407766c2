/**
 * `metal-hammer inventory [--json]`: the hardware the built-in flow registers
 * (BootService/Register's hardware and bios), read from /proc and /sys. A debug
 * shell command: it talks to no server.
 */
import type { Command } from "commander";
import { collectInventory, PCI_IDS_FILES, PROC_ROOT } from "../machine/inventory/collect.ts";
import type { Context } from "../platform/io/context.ts";
import { escapeUntrusted } from "../platform/log/escape.ts";
import { printRecord, printTable } from "./print.ts";

const gib = (bytes: string) => `${(Number(bytes) / 2 ** 30).toFixed(1)} GiB`;

export function registerInventory(program: Command, ctx: Context): void {
  program
    .command("inventory")
    .description("show the hardware the machine registers with (memory, disks, NICs, CPUs, GPUs, BIOS)")
    .option("--json", "print the Register request's hardware and bios as JSON")
    .option("--sysfs <dir>", "sysfs root", "/sys")
    .option("--proc <dir>", "procfs root", PROC_ROOT)
    .option("--pci-ids <file>", `PCI names (default: ${PCI_IDS_FILES.join(", else ")})`)
    .action(async (opts: { json?: boolean; sysfs: string; proc: string; pciIds?: string }) => {
      const inv = await collectInventory({ sysRoot: opts.sysfs, procRoot: opts.proc, ...(opts.pciIds ? { pciIds: [opts.pciIds] } : {}) });
      if (opts.json) {
        printRecord(ctx, { hardware: inv.hardware, bios: inv.bios ?? null, memorySource: inv.memorySource ?? null, notes: inv.notes }, true);
        return;
      }
      const h = inv.hardware;
      const rows: string[][] = [["memory", "", gib(h.memory), `${h.memory} bytes${inv.memorySource ? `, from ${inv.memorySource}` : ""}`]];
      for (const c of h.cpus) rows.push(["cpu", c.vendor, c.model, `${c.cores} cores, ${c.threads} threads`]);
      for (const d of h.disks) rows.push(["disk", d.name, gib(d.size), `${d.size} bytes`]);
      for (const n of h.nics)
        rows.push([
          "nic",
          n.name,
          n.mac,
          [n.identifier, n.vendor, n.model, n.speed === "0" ? "speed unknown" : `${Number(n.speed) / 1e9} Gbit/s`].filter((s) => s !== "").join(", "),
        ]);
      for (const g of h.gpus) rows.push(["gpu", g.vendor, g.model, ""]);
      if (inv.bios) rows.push(["bios", inv.bios.vendor, inv.bios.version, inv.bios.date]);
      printTable(ctx, ["KIND", "NAME", "VALUE", "DETAIL"], rows);
      for (const n of inv.notes) ctx.io.out(`note: ${escapeUntrusted(n)}\n`);
    });
}
