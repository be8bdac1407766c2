import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-cli-bmc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sys = join(dir, "sys");
mkdirSync(join(sys, "class/dmi/id"), { recursive: true });
writeFileSync(join(sys, "class/dmi/id/board_vendor"), "Supermicro\n");

describe("metal-hammer bmc", () => {
  test("no /dev/ipmi*: present false, exit 0, the vendor still read", async () => {
    const c = captureContext();
    mkdirSync(join(dir, "dev-empty"));
    expect(await runCli(["bmc", "--json", "--sysfs", sys, "--dev", join(dir, "dev-empty")], c.ctx)).toBe(0);
    expect(JSON.parse(c.out())).toEqual({
      present: false,
      boardVendor: "Supermicro",
      note: `no /dev/ipmi* in ${join(dir, "dev-empty")}: no BMC (or ipmi_si/ipmi_devintf not loaded)`,
    });
  });

  test("a BMC node that does not answer: exit 0, every read is a note, the vendor's user ids shown", async () => {
    const dev = join(dir, "dev-ipmi");
    mkdirSync(dev);
    writeFileSync(join(dev, "ipmi0"), "");
    const c = captureContext();
    expect(await runCli(["bmc", "--json", "--sysfs", sys, "--dev", dev], c.ctx)).toBe(0);
    const v = JSON.parse(c.out());
    expect(v).toMatchObject({ present: true, address: null, mac: null, firmware: null, vendor: "Supermicro", metalUser: "metal (id 10)", superUser: "root (id 4)", fru: {} });
    // This host's real ipmitool (or its absence) cannot reach /dev/ipmi0 here: three notes, one per command.
    expect(v.notes.filter((n: string) => /^ipmitool -I open (lan print|bmc info|fru): /.test(n))).toHaveLength(3);
  });
});
