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
    // The fixture's proc/meminfo, not this machine's: it has no memory blocks nor kernel log.
    expect(v.hardware.memory).toBe(String(24683620 * 1024));
    expect(v.memorySource).toBe("meminfo");
    expect(v.hardware.nics.map((n: { name: string }) => n.name)).toEqual(["eno1", "enp24s0f0", "enp24s0f1", "br0"]);
    expect(v.hardware.disks.map((d: { name: string }) => d.name)).toEqual(["/dev/nvme0n1", "/dev/sda"]);
    expect(v.bios).toEqual({ version: "3.4", vendor: "American Megatrends Inc.", date: "05/18/2021" });
    expect(v.notes).toEqual([expect.stringMatching(/^memory: \/sys\/devices\/system\/memory cannot be listed and .*: MemTotal sent/)]);
  });

  test("a captured machine (QEMU -m 1024): memory from its sysfs memory blocks, else from DIR/dmesg", async () => {
    const dir = join(FIX, "qemu-m1024");
    const c = captureContext();
    expect(await runCli(["inventory", "--json", "--sysfs", join(dir, "sys"), "--proc", join(dir, "proc")], c.ctx)).toBe(0);
    expect(JSON.parse(c.out())).toMatchObject({ hardware: { memory: String(1024 * 1024 * 1024) }, memorySource: "memory-blocks" });
    const t = captureContext();
    expect(await runCli(["inventory", "--sysfs", "/nonexistent-mhp", "--proc", join(dir, "proc")], t.ctx)).toBe(0);
    expect(t.out()).toMatch(/^memory\s+1\.0 GiB\s+1073209344 bytes, from kernel-log$/m);
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
    expect(lines.filter((l) => l.startsWith("note:"))).toEqual([expect.stringMatching(/^note: memory: /)]);
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
