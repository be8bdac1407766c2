/**
 * The BMC stage with Debian's real ipmitool against OpenIPMI's ipmi_sim over lanplus on
 * loopback (the in-band path differs only in `-I open`; the QEMU lab covers that): what
 * Register would carry is what the simulator serves, and the users the agent writes
 * log in from outside as metal-bmc would, while a wrong password does not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { discoverBmc, writeSuperUser, type BmcDeps } from "../../../src/machine/bmc/discover.ts";
import { systemIpmitool } from "../../../src/machine/bmc/ipmitool.ts";
import { bmcRegisterFields } from "../../../src/machine/bmc/register-fields.ts";
import { passwordFieldHex } from "../../../src/machine/bmc/set-user-password.ts";
import { bmcVendor } from "../../../src/machine/bmc/vendor.ts";
import { LAB_FRU, startBmcSim, type BmcSim } from "../../../lab/bmc/sim.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const ADMIN = { id: 2, name: "ADMIN", password: "ADMINpass123", privilege: "admin" as const };
const LIMITED = { id: 5, name: "limited", password: "LimitPass1234", privilege: "user" as const };

const ok = prerequisites("bmc against ipmi_sim", [!Bun.which("ipmi_sim") && "ipmi_sim (Debian openipmi)", !Bun.which("ipmitool") && "ipmitool"]);

/** Logs in over lanplus as `user` with `password` (cipher suite 3: suite 0 accepts any password). */
async function login(sim: BmcSim, user: string, password: string): Promise<{ code: number; out: string }> {
  const p = Bun.spawn([...sim.lanplus(user), "user", "list", "1"], { stdout: "pipe", stderr: "pipe", env: { ...process.env, IPMI_PASSWORD: password } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out + err };
}

function lanDeps(sim: BmcSim, as: { name: string; password: string }, level: readonly string[] = []): BmcDeps & { secrets: string[] } {
  const argv = [...sim.lanplus(as.name), ...level];
  const secrets: string[] = [];
  return {
    tool: systemIpmitool({ command: argv[0]!, interfaceArgs: argv.slice(1), timeoutMs: 10_000, path: "/usr/bin:/bin:/usr/sbin", env: { IPMI_PASSWORD: as.password } }),
    random: (n) => crypto.getRandomValues(new Uint8Array(n)),
    addSecret: (v) => void secrets.push(v),
    sleep: (ms) => Bun.sleep(ms),
    jitter: Math.random,
    secrets,
  };
}

describe.if(ok)("bmc against ipmi_sim", () => {
  let sim: BmcSim;
  beforeAll(async () => {
    sim = await startBmcSim({ lanAddress: "127.0.0.1", reportedIp: "192.0.2.10", reportedMac: "52:54:00:ab:cd:ef", users: [ADMIN, LIMITED], fru: LAB_FRU, firmware: [3, 0x14] });
    // lan.conf's max privilege does not limit a lanplus session; channel access does, for a
    // session asked at that level (-L USER: ipmi_sim grants Administrator to a session that asks for it).
    const limit = Bun.spawn([...sim.lanplus(ADMIN.name), "channel", "setaccess", "1", String(LIMITED.id), "privilege=2"], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, IPMI_PASSWORD: ADMIN.password },
    });
    expect(await limit.exited).toBe(0);
  });
  afterAll(async () => await sim?.stop());

  test("Register's bmc and fru are what the BMC serves, and the metal user logs in with the reported password", async () => {
    const d = lanDeps(sim, ADMIN);
    const o = await discoverBmc(d, true, "Supermicro");
    if (!o.present) throw new Error("expected present");
    const fields = bmcRegisterFields(o);
    expect(fields.bmc).toMatchObject({ address: "192.0.2.10:623", mac: "52:54:00:ab:cd:ef", user: "metal", interface: "lanplus", version: "3.14" });
    expect(fields.fru).toEqual({
      chassisPartNumber: LAB_FRU.chassisPartNumber,
      chassisPartSerial: LAB_FRU.chassisSerial,
      boardMfg: LAB_FRU.boardMfg,
      boardMfgSerial: LAB_FRU.boardSerial,
      boardPartNumber: LAB_FRU.boardPartNumber,
      productManufacturer: LAB_FRU.productManufacturer,
      productPartNumber: LAB_FRU.productPartNumber,
      productSerial: LAB_FRU.productSerial,
    });
    // ipmi_sim has no SOL payload command: the one note.
    expect(o.notes).toHaveLength(1);
    expect(o.notes[0]).toContain("sol payload enable 1 10");
    const password = fields.bmc!.password!;
    expect(d.secrets).toEqual([password, passwordFieldHex(password)]);
    const asMetal = await login(sim, "metal", password);
    expect(asMetal.code).toBe(0);
    expect(asMetal.out).toMatch(/^10\s+metal\s+true\s+true\s+true\s+ADMINISTRATOR$/m);
    expect((await login(sim, "metal", "Wrong1pass2")).code).not.toBe(0);
  });

  test("the superuser password the apiserver hands out logs in as root (id 4)", async () => {
    const r = await writeSuperUser(lanDeps(sim, ADMIN), bmcVendor("Supermicro")!, "Handed0ut9pw");
    expect(r.ok).toBe(true);
    expect((await login(sim, "root", "Handed0ut9pw")).code).toBe(0);
  });

  // Through `user set password` on ipmitool exec's stdin each was set short, empty or
  // altered (Abc#defgh12 as Abc, #Abcdefg1 as empty), and reported as set. `near` is a
  // form that must not log in.
  for (const [password, near] of [
    ["Abc#defgh12", "Abc"],
    ["#Abcdefg1", ""],
    ["'Quoted1pw'", "Quoted1pw"],
    [`Ab"cd~ef'gh`, "Abcd~efgh"],
    ["x\\y%z!~`{}&;|", "x\\y%z!~`{}&;|"],
    ["sixteen-chars-ok", "sixteen-chars-ok"],
  ] as const) {
    test(`the superuser password ${JSON.stringify(password)} logs in as root over lanplus, byte for byte`, async () => {
      const r = await writeSuperUser(lanDeps(sim, ADMIN), bmcVendor("Supermicro")!, password);
      // ipmi_sim has no SOL payload command: the one note.
      expect(r.ok).toBe(true);
      expect(r.notes).toEqual([expect.stringContaining("sol payload enable 1 4")]);
      const asRoot = await login(sim, "root", password);
      expect(asRoot.out).toMatch(/^4\s+root\s+true\s+true\s+true\s+ADMINISTRATOR$/m);
      expect(asRoot.code).toBe(0);
      if (near !== password) expect((await login(sim, "root", near)).code).not.toBe(0);
    });
  }

  test("a BMC that refuses the user change (a session with User privilege): a note naming the refusal, the FRU still read, Register held back", async () => {
    const o = await discoverBmc(lanDeps(sim, LIMITED, ["-L", "USER"]), true, "Lenovo");
    if (!o.present) throw new Error("expected present");
    expect(o.user).toBeUndefined();
    expect(o.notes.join("\n")).toMatch(/user set name 3 metal: exit 1: .*Insufficient privilege level/);
    // At User level the user list is refused too: whether the metal user was there (so the apiserver holds its
    // credentials) is not known, so Register is held back rather than clear them (register-fields.ts).
    expect(o.metalUserBefore).toBe("unknown");
    expect(o.fru.productSerial).toBe(LAB_FRU.productSerial);
    const fields = bmcRegisterFields(o);
    expect(fields.bmc).toBeUndefined();
    expect(fields.backwards).toStartWith("the metal BMC user may be on the BMC from an earlier boot (the user list could not be read), and it could not be written now (");
  });
});
