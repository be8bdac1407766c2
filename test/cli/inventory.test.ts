import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

const FIX = join(import.meta.dir, "../fixtures/inventory");
const args = ["--sysfs", join(FIX, "sys"), "--proc", join(FIX, "proc"), "--pci-ids", join(FIX, "pci.ids")];

describe("metal-hammer inventory", () => {
  test("--json prints the Register hardware and bios of the fixture machine, plus notes", async () => {
    const c = captureContext();
    expect(await runCli(["inventory", "--json", ...args], c.ctx)).toBe(0);
    const v = JSON.parse(c.out());
    expect(v.hardware.memory).toBe(String(24683620 * 1024)); // the fixture's proc/meminfo, not this machine's
    expect(v.hardware.nics.map((n: { name: string }) => n.name)).toEqual(["eno1", "enp24s0f0", "enp24s0f1", "br0"]);
    expect(v.hardware.disks.map((d: { name: string }) => d.name)).toEqual(["/dev/nvme0n1", "/dev/sda"]);
    expect(v.bios).toEqual({ version: "3.4", vendor: "American Megatrends Inc.", date: "05/18/2021" });
    expect(v.notes).toEqual([]);
  });

  test("the table has one line per item and names what was left out", async () => {
    const c = captureContext();
    expect(await runCli(["inventory", ...args], c.ctx)).toBe(0);
    const lines = c.out().trim().split("\n");
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+VALUE\s+DETAIL$/);
    expect(lines.filter((l) => l.startsWith("nic "))).toHaveLength(4);
    expect(lines).toContainEqual(
      expect.stringMatching(/^nic\s+enp24s0f0\s+3c:fd:fe:a0:b0:c0\s+0000:18:00\.0, Intel Corporation, Ethernet Controller XXV710 for 25GbE SFP28, 25 Gbit\/s$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^bios\s+American Megatrends Inc\.\s+3\.4\s+05\/18\/2021$/));
    expect(lines.filter((l) => l.startsWith("note:"))).toEqual([]);
  });

  test("an empty sysfs/procfs root: still exit 0, the notes say what could not be read", async () => {
    const c = captureContext();
    expect(await runCli(["inventory", "--json", "--sysfs", "/nonexistent-mhp", "--proc", "/nonexistent-mhp"], c.ctx)).toBe(0);
    const v = JSON.parse(c.out());
    expect(v.hardware.nics).toEqual([]);
    expect(v.notes).toContain("cpus: /proc/cpuinfo lists no processor");
    expect(v.notes).toContain("bios: /sys/class/dmi/id has no bios_vendor/bios_version/bios_date: sent as empty string(s)");
  });
});
