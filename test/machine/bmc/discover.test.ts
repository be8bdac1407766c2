/**
 * The BMC stage against fake ipmitools (shell scripts): what it reports, how each fault
 * ends (a note, never a throw), and that a password never reaches argv. The real
 * ipmitool against ipmi_sim is test/integration/bmc/ipmi-sim.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverBmc, writeSuperUser, type BmcDeps } from "../../../src/machine/bmc/discover.ts";
import { systemIpmitool } from "../../../src/machine/bmc/ipmitool.ts";
import { bmcRegisterFields } from "../../../src/machine/bmc/register-fields.ts";
import { passwordFieldHex } from "../../../src/machine/bmc/set-user-password.ts";
import { bmcVendor } from "../../../src/machine/bmc/vendor.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-bmc-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixtures = join(import.meta.dir, "../../fixtures/bmc");

/** A fake ipmitool: logs each argv (one line) and stdin, answers from the recorded fixtures; `body` may override. */
function fakeIpmitool(name: string, body = ""): { path: string; argvLog: string; stdinLog: string } {
  const path = join(dir, name);
  const argvLog = join(dir, `${name}.argv`);
  const stdinLog = join(dir, `${name}.stdin`);
  writeFileSync(
    path,
    `#!/bin/sh
echo "$*" >> ${argvLog}
shift 2
${body}
case "$1 $2" in
  "lan print") cat ${fixtures}/ipmi_sim-lan-print.txt ;;
  "bmc info") cat ${fixtures}/ipmi_sim-bmc-info.txt ;;
  "fru "*) cat ${fixtures}/ipmi_sim-fru.txt ;;
  "exec /proc/self/fd/0") cat >> ${stdinLog} ;;
  *) : ;;
esac
`,
  );
  chmodSync(path, 0o755);
  return { path, argvLog, stdinLog };
}

function deps(command: string, timeoutMs = 5_000): BmcDeps & { secrets: string[] } {
  const secrets: string[] = [];
  return {
    tool: systemIpmitool({ command, interfaceArgs: ["-I", "open"], timeoutMs, path: "/usr/bin:/bin", killGraceMs: 500 }),
    random: (n) => crypto.getRandomValues(new Uint8Array(n)),
    addSecret: (v) => void secrets.push(v),
    sleep: async () => {},
    jitter: () => 0.5,
    secrets,
  };
}

describe("discoverBmc", () => {
  test("reads the BMC, creates the metal user at the vendor's id and reports both in Register's fields", async () => {
    const f = fakeIpmitool("ok");
    const d = deps(f.path);
    const o = await discoverBmc(d, true, "Supermicro");
    expect(o.present).toBe(true);
    if (!o.present) return;
    expect(o.vendor).toBe("Supermicro");
    expect(o.user?.id).toBe(10);
    const fields = bmcRegisterFields(o);
    expect(fields.bmc).toEqual({ address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "metal", password: o.user!.password, interface: "lanplus", version: "1.02" });
    expect(fields.fru?.productSerial).toBe("PRD-SN-XYZ987");
    // go-hal's order: name, password (+ enable), channel access, SOL.
    expect(readFileSync(f.argvLog, "utf8").trim().split("\n")).toEqual([
      "-I open lan print",
      "-I open bmc info",
      "-I open fru",
      "-I open user list 1",
      "-I open user set name 10 metal",
      "-I open exec /proc/self/fd/0",
      "-I open user enable 10",
      "-I open exec /proc/self/fd/0",
      "-I open channel setaccess 1 10 link=on ipmi=on callin=on privilege=4",
      "-I open sol payload enable 1 10",
    ]);
  });

  test("the password reaches ipmitool only on stdin, as the raw command's bytes, set then tested; both forms are known secrets before that", async () => {
    const f = fakeIpmitool("secret");
    const d = deps(f.path);
    const o = await discoverBmc(d, true, "Dell Inc.");
    if (!o.present || !o.user) throw new Error("expected a user");
    const pw = o.user.password;
    const bytes = passwordFieldHex(pw);
    expect(d.secrets).toEqual([pw, bytes]);
    expect(readFileSync(f.argvLog, "utf8")).not.toContain(pw);
    expect(readFileSync(f.argvLog, "utf8")).not.toContain(bytes);
    expect(readFileSync(f.stdinLog, "utf8")).toBe(`raw 0x06 0x47 0x03 0x02 ${bytes}\nraw 0x06 0x47 0x03 0x03 ${bytes}\n`);
    expect(JSON.stringify(o.notes)).not.toContain(pw);
  });

  test("no BMC: nothing is run and Register carries neither bmc nor fru", async () => {
    const f = fakeIpmitool("absent");
    const o = await discoverBmc(deps(f.path), false, "Supermicro");
    expect(o).toEqual({ present: false, notes: ["no BMC: no /dev/ipmi* (ipmi_si found no KCS/SMIC/BT interface)"] });
    expect(bmcRegisterFields(o)).toEqual({ notes: [] });
  });

  test("an unknown board vendor: the BMC is read and reported, no user is written", async () => {
    const f = fakeIpmitool("unknown-vendor");
    const o = await discoverBmc(deps(f.path), true, "QEMU");
    if (!o.present) throw new Error("expected present");
    expect(o.user).toBeUndefined();
    expect(o.notes.at(-1)).toContain('board vendor "QEMU" is not one whose BMC user ids are known');
    expect(bmcRegisterFields(o).bmc).toMatchObject({ address: "192.0.2.10:623", user: "", password: "" });
    expect(readFileSync(f.argvLog, "utf8")).not.toContain("user set");
  });

  test("ipmitool missing: every step is a note naming it, nothing throws", async () => {
    const o = await discoverBmc(deps(join(dir, "no-such-ipmitool")), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect(o.notes[0]).toContain("cannot run ipmitool");
    expect(o.user).toBeUndefined();
    expect(bmcRegisterFields(o).bmc).toBeUndefined();
  });

  test("a hanging ipmitool is killed at its bound", async () => {
    const f = fakeIpmitool("hang", "exec sleep 30");
    const t0 = performance.now();
    const o = await discoverBmc(deps(f.path, 200), true, "Supermicro");
    const ms = performance.now() - t0;
    if (!o.present) throw new Error("expected present");
    expect(o.notes[0]).toBe("ipmitool -I open lan print: no answer within its bound (killed)");
    // 3 reads + the first user step, each at most its 200 ms bound (plus spawn time).
    expect(ms).toBeLessThan(10_000);
    expect(o.user).toBeUndefined();
  });

  test("garbage output: notes say what is missing, Register gets no bmc", async () => {
    const f = fakeIpmitool("garbage", `head -c 300 /dev/urandom | tr -d ':'; exit 0`);
    const o = await discoverBmc(deps(f.path), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect(o.notes).toContain("lan print: no 'IP Address' line");
    expect(o.notes).toContain("fru: no FRU device printed");
    expect(bmcRegisterFields(o).bmc).toBeUndefined();
  });

  test("a FRU answer larger than ipmitool's output cap: a note naming the cap, the LAN reading still reported", async () => {
    const f = fakeIpmitool("huge-fru", `[ "$1" = fru ] && exec head -c 4194304 /dev/zero`);
    const o = await discoverBmc(deps(f.path), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect(o.notes.filter((n) => n.startsWith("ipmitool -I open fru:"))).toEqual([
      expect.stringMatching(/^ipmitool -I open fru: exit \d+: huge-fru wrote more than the cap of 1048576 bytes on stdout: killed, the rest not read$/),
    ]);
    expect(o.fru).toEqual({});
    expect(bmcRegisterFields(o).bmc).toMatchObject({ address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef" });
  });

  test("a BMC that refuses the user change: the reading is still reported, without a user", async () => {
    const f = fakeIpmitool("refuse", `[ "$1 $2" = "user set" ] && { echo "Set User Name command failed (user 10, name metal): Insufficient privilege level" >&2; exit 1; }`);
    const o = await discoverBmc(deps(f.path), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect(o.user).toBeUndefined();
    expect(o.notes).toEqual(["ipmitool -I open user set name 10 metal: exit 1: Set User Name command failed (user 10, name metal): Insufficient privilege level"]);
    // No metal user on the BMC before: nothing stored to lose; Register reports the BMC without credentials.
    expect(o.metalUserBefore).toBe("absent");
    expect(bmcRegisterFields(o).bmc).toMatchObject({ mac: "52:54:00:ab:cd:ef", user: "" });
  });

  test("a BMC that refuses the user change while the metal user is there from an earlier boot: Register would go backwards", async () => {
    const f = fakeIpmitool(
      "refuse-again",
      `[ "$1 $2" = "user list" ] && { printf 'ID  Name\t     Callin  Link Auth\tIPMI Msg   Channel Priv Limit\n1                    true    false      false      Unknown (0x00)\n2   ADMIN            false   false      true       ADMINISTRATOR\n10  metal            true    true       true       ADMINISTRATOR\n'; exit 0; }
[ "$1 $2" = "user set" ] && { echo "Set User Name command failed (user 10, name metal): Insufficient privilege level" >&2; exit 1; }`,
    );
    const o = await discoverBmc(deps(f.path), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect([o.user, o.metalUserBefore]).toEqual([undefined, "present"]);
    const fields = bmcRegisterFields(o);
    expect(fields.bmc).toBeUndefined();
    expect(fields.backwards).toStartWith(
      "the metal BMC user is on the BMC from an earlier boot, so the apiserver holds its credentials, and it could not be written now (ipmitool -I open user set name 10 metal: exit 1:",
    );
  });

  test("a BMC without SOL: the user is created, the missing SOL access is a note (without ipmitool's missing IANA list)", async () => {
    const f = fakeIpmitool(
      "nosol",
      `[ "$1" = sol ] && { echo "IANA PEN registry open failed: No such file or directory" >&2; echo "Error enabling SOL payload for user 10 on channel 1: Invalid command" >&2; exit 1; }`,
    );
    const o = await discoverBmc(deps(f.path), true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    expect(o.user?.name).toBe("metal");
    expect(o.notes).toEqual([
      "ipmitool -I open sol payload enable 1 10: exit 1: Error enabling SOL payload for user 10 on channel 1: Invalid command (the user works without SOL access)",
    ]);
  });
});

describe("writeSuperUser", () => {
  test("a password too long for the BMC is refused before any ipmitool call, and not quoted", async () => {
    const f = fakeIpmitool("toolong");
    const pw = "a-very-long-superuser-password-1";
    const r = await writeSuperUser(deps(f.path), bmcVendor("Supermicro")!, pw);
    expect(r.ok).toBe(false);
    expect(r.notes[0]).toStartWith("the password for BMC user root (id 4) is not set: it is 32 bytes long");
    expect(r.notes[0]).not.toContain(pw);
    expect(() => readFileSync(f.argvLog)).toThrow();
  });

  test("sets the password of the vendor's superuser and tests it", async () => {
    const f = fakeIpmitool("super");
    const r = await writeSuperUser(deps(f.path), bmcVendor("Giga Computing")!, "Sup3rS3cret");
    expect(r).toEqual({ ok: true, notes: [] });
    expect(readFileSync(f.argvLog, "utf8")).toContain("user set name 4 superuser");
    const bytes = "0x53 0x75 0x70 0x33 0x72 0x53 0x33 0x63 0x72 0x65 0x74 0x00 0x00 0x00 0x00 0x00";
    expect(readFileSync(f.stdinLog, "utf8")).toBe(`raw 0x06 0x47 0x04 0x02 ${bytes}\nraw 0x06 0x47 0x04 0x03 ${bytes}\n`);
  });

  test("a password with # and quotes goes to ipmitool's exec as hex only: no character its line parser reads as a comment or a quote", async () => {
    const f = fakeIpmitool("hostile");
    const pw = `#Ab"c'd~e`;
    const r = await writeSuperUser(deps(f.path), bmcVendor("Supermicro")!, pw);
    expect(r).toEqual({ ok: true, notes: [] });
    for (const line of readFileSync(f.stdinLog, "utf8").trim().split("\n")) expect(line).toMatch(/^raw( 0x[0-9a-f]{2})+$/);
  });

  test("the BMC's Test Password refuses the password just set: not ok, a note saying so (the password not quoted)", async () => {
    const refuse = `[ "$1" = exec ] && { line=$(cat); case "$line" in "raw 0x06 0x47 0x04 0x03 "*) echo "Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47 rsp=0x80): Unknown (0x80)" >&2; exit 1 ;; esac; exit 0; }`;
    const f = fakeIpmitool("test-refused", refuse);
    const r = await writeSuperUser(deps(f.path), bmcVendor("Supermicro")!, "Abc#defgh12");
    expect(r).toEqual({ ok: false, notes: ["BMC user root (id 4) does not have the password just set: Test Password answered 0x80 (password incorrect)"] });
    // Nothing after the failed check: no channel access for a user whose password is unknown.
    expect(readFileSync(f.argvLog, "utf8")).not.toContain("channel setaccess");
  });

  test("a BMC without Test Password (invalid command): set, with a note that it is not verified", async () => {
    const noTest = `[ "$1" = exec ] && { line=$(cat); case "$line" in "raw 0x06 0x47 0x04 0x03 "*) echo "Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47 rsp=0xc1): Invalid command" >&2; exit 1 ;; esac; exit 0; }`;
    const f = fakeIpmitool("no-test", noTest);
    const r = await writeSuperUser(deps(f.path), bmcVendor("Supermicro")!, "Sup3rS3cret");
    expect(r.ok).toBe(true);
    expect(r.notes).toEqual([
      "ipmitool -I open raw Test Password 4 (password on stdin): exit 1: Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47 rsp=0xc1): Invalid command: the password set for root is not verified",
    ]);
  });
});
