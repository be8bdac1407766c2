/**
 * The executor with the drives' own erase, against fake hdparm and sg3_utils
 * (fake-drives.ts) that record the exact command lines and fail each way a drive
 * does. What no emulator here can show (ATA security: QEMU's AHCI disk has no Security
 * feature set) the fakes stand in for, with real drives' `hdparm -I` as their state.
 */
import { describe, expect, test } from "bun:test";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { WipeFailedError, wipeDisks, type WipeReport } from "../../../src/machine/disk/wipe-run.ts";
import { MICRON, SEAGATE_OPCODES, SEAGATE_SANITIZING, WD5000 } from "./drive-vectors.ts";
import { ataDrive, fakeHdparm, fakeSg, type FakeAtaDrive } from "./fake-drives.ts";
import { disk, fakeMachine, type FakeDev } from "./helpers.ts";
import { captureLogger } from "./log.ts";

const SIZE = 4 * MIB;
const dev = (): FakeDev => ({ bytes: new Uint8Array(SIZE).fill(0xab), signatures: ["gpt", "PMBR"], partitions: ["sda1"] });
/** The WD5000BMVV as an SED would report it: 2 min for either erase (so fast mode runs it). */
const SED = WD5000.replace("138min for SECURITY ERASE UNIT. 138min for ENHANCED", "2min for SECURITY ERASE UNIT. 2min for ENHANCED");
const sata = disk({ sizeBytes: SIZE, model: "ATA WDC WD5000BMVV-11GNWS0" });
const sas = disk({ sizeBytes: SIZE, model: "SEAGATE ST10000NM0226" });

async function wipe(d: typeof sata, hooks: Parameters<typeof fakeMachine>[1], devs: Record<string, FakeDev>) {
  const m = fakeMachine(devs, hooks);
  const { log, lines } = captureLogger();
  const run = await wipeDisks([d], { mode: "fast", io: m.io, log, partitions: async () => devs["/dev/sda"]?.partitions ?? [] }).then(
    (r): WipeReport | WipeFailedError => r,
    (e: unknown) => e as WipeFailedError,
  );
  return { run, calls: m.calls, lines };
}

const hdparmCalls = (calls: string[][]) => calls.filter((c) => c[0] === "hdparm" || c[0] === "setsid").map((c) => c.join(" "));
/** The one-time passwords (one per security erase tried) are nowhere but on the drive's stdin: not in argv, a log line, or the report. */
function neverShown(a: FakeAtaDrive, calls: string[][], lines: unknown[], run: unknown) {
  expect(a.passwordsSeen.length).toBeGreaterThan(0);
  const shown = JSON.stringify([calls, lines, run instanceof WipeFailedError ? { m: run.message, r: run.report } : run]);
  for (const pw of new Set(a.passwordsSeen)) {
    expect(pw).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(shown).not.toContain(pw);
  }
}

describe("ATA security erase", () => {
  test("an SED (2 min): one-time password on stdin, enhanced erase, security off again, verified; the exact command lines", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED);
    const { run, calls, lines } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    const r = (run as WipeReport).disks[0];
    expect(r).toMatchObject({ outcome: "wiped", method: "ata-security-erase-enhanced", zeroesChecked: false, locked: false });
    expect(hdparmCalls(calls)).toEqual([
      "hdparm -I /dev/sda",
      "setsid -w hdparm --user-master u --security-prompt-for-password --security-set-pass /dev/sda",
      "hdparm -I /dev/sda",
      "setsid -w hdparm --user-master u --security-prompt-for-password --security-erase-enhanced /dev/sda",
      "hdparm -I /dev/sda",
    ]);
    expect([a.enabled, a.locked]).toEqual([false, false]);
    neverShown(a, calls, lines, run);
    // The disk's record in the log: method, duration, zeroes verified or not.
    expect(lines.find((l) => l.event === "disk.wipe.done")).toMatchObject({ disk: "sda", method: "ata-security-erase-enhanced", zeroesChecked: false });
  });

  test("the erase times out: the drive is unlocked/disabled with the one-time password and reported, then the next method erases", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED, { erase: "timeout" });
    const { run, calls, lines } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    const r = (run as WipeReport).disks[0];
    expect(r?.attempts[0]?.error).toBe("hdparm --security-erase-enhanced: no answer within 780 s (killed); the one-time password is disabled again");
    expect(hdparmCalls(calls).slice(4, 7)).toEqual([
      "hdparm -I /dev/sda",
      "setsid -w hdparm --user-master u --security-prompt-for-password --security-disable /dev/sda",
      "hdparm -I /dev/sda",
    ]);
    expect([a.enabled, a.locked]).toEqual([false, false]);
    expect(r).toMatchObject({ outcome: "wiped", locked: false });
    neverShown(a, calls, lines, run);
  });

  test("still locked after the erase: unlocked and disabled with the one-time password, never left locked; the error says so", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED, { erase: "stays-locked" });
    const { run, calls, lines } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    const r = (run as WipeReport).disks[0];
    expect(r?.attempts[0]?.error).toBe("after hdparm --security-erase-enhanced ATA security is locked; the one-time password is disabled again");
    expect(hdparmCalls(calls)).toContain("setsid -w hdparm --user-master u --security-prompt-for-password --security-unlock /dev/sda");
    expect([a.enabled, a.locked]).toEqual([false, false]);
    neverShown(a, calls, lines, run);
  });

  test("locked and the unlock refused: wipe_drive_locked (exit 64) naming the disk and its state; no further method is tried", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED, { erase: "stays-locked", unlock: "refused" });
    const { run, calls, lines } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    expect(run).toBeInstanceOf(WipeFailedError);
    const e = run as WipeFailedError;
    expect([e.code, e.exitCode]).toEqual(["wipe_drive_locked", 64]);
    expect(e.message).toBe(
      "wipe failed: /dev/sda (ata-security-erase-enhanced): after hdparm --security-erase-enhanced ATA security is locked; ATA security is still locked after unlock and disable with the one-time password (hdparm --security-unlock exited 5: SECURITY_UNLOCK: Input/output error; hdparm --security-disable exited 5: SECURITY_DISABLE: Input/output error)",
    );
    expect(e.report.disks[0]).toMatchObject({ outcome: "failed", locked: true });
    expect(e.report.disks[0]?.attempts.map((x) => x.method)).toEqual(["ata-security-erase-enhanced"]);
    expect(lines.find((l) => l.event === "disk.wipe.failed")).toMatchObject({ disk: "sda", locked: true });
    neverShown(a, calls, lines, run);
  });

  test("hdparm echoes the password in an error: the message carries a placeholder instead", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED, { erase: "error-echoing-password" });
    const { run, calls, lines } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    expect((run as WipeReport).disks[0]?.attempts[0]?.error).toBe(
      'hdparm --security-erase-enhanced exited 5: Issuing SECURITY_ERASE command, password="<one-time password>", user=user; the one-time password is disabled again',
    );
    neverShown(a, calls, lines, run);
  });

  test("the drive refuses the password (frozen after hdparm -I said not frozen): nothing to clear, the error is the refusal, the next method runs", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED.replace("\tnot\tfrozen\n", "\t\tfrozen\n"));
    // The probe saw "not frozen": the drive froze between the probe and the command.
    const hooks = fakeHdparm(devs["/dev/sda"], a);
    let probes = 0;
    const { run, calls, lines } = await wipe(
      sata,
      { ...hooks, hdparm: (argv) => (argv[1] === "-I" && probes++ === 0 ? { code: 0, stdout: SED, stderr: "", timedOut: false } : hooks.hdparm(argv)) },
      devs,
    );
    const r = (run as WipeReport).disks[0];
    expect(r?.attempts[0]?.error).toBe("hdparm --security-set-pass exited 5: SECURITY_SET_PASS: Input/output error");
    expect(r).toMatchObject({ outcome: "wiped", method: "metadata", locked: false });
    neverShown(a, calls, lines, run);
  });

  test("a drive already locked by someone else's password is refused as locked (exit 64) without a command sent", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(SED, { enabled: true, locked: true, password: "tenant-password" });
    const { run, calls } = await wipe(sata, fakeHdparm(devs["/dev/sda"], a), devs);
    expect((run as WipeFailedError).code).toBe("wipe_drive_locked");
    expect((run as WipeFailedError).message).toContain("/dev/sda (no method): the drive is ATA-locked by a password the agent does not know");
    expect(hdparmCalls(calls)).toEqual(["hdparm -I /dev/sda"]);
  });
});

describe("ATA SANITIZE and a frozen drive", () => {
  test("the Micron 5300 (frozen): no security command at all, SANITIZE crypto scramble polled to SD4, verified", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(MICRON, {
      sanitizeStatus: [
        "Sanitize status:\n    State:    SD2 Sanitize operation In Process\n    Progress: 0x8000 (50%)\n",
        "Sanitize status:\n    State:    SD4 Sanitize Operation succeeded\n",
      ],
    });
    const ssd = disk({ sizeBytes: SIZE, model: "ATA Micron_5300_MTFDDAK1T9TDS", rotational: false });
    const { run, calls, lines } = await wipe(ssd, fakeHdparm(devs["/dev/sda"], a), devs);
    expect((run as WipeReport).disks[0]).toMatchObject({ outcome: "wiped", method: "ata-sanitize-crypto" });
    expect(hdparmCalls(calls)).toEqual([
      "hdparm -I /dev/sda",
      "hdparm --yes-i-know-what-i-am-doing --sanitize-crypto-scramble /dev/sda",
      "hdparm --sanitize-status /dev/sda",
      "hdparm --sanitize-status /dev/sda",
    ]);
    expect(lines.find((l) => l.event === "disk.wipe.progress")).toMatchObject({ method: "ata-sanitize-crypto", progress: 0.5 });
    expect(a.passwordsSeen).toEqual([]);
  });

  test("a sanitize that never finishes fails at its bound (10 min for crypto), and so does block erase; metadata takes over", async () => {
    const devs = { "/dev/sda": dev() };
    const a = ataDrive(MICRON, { sanitizeStatus: ["Sanitize status:\n    State:    SD2 Sanitize operation In Process\n    Progress: 0x0 (0%)\n"] });
    const ssd = disk({ sizeBytes: SIZE, model: "ATA Micron_5300_MTFDDAK1T9TDS", rotational: false });
    const { run } = await wipe(ssd, fakeHdparm(devs["/dev/sda"], a), devs);
    const r = (run as WipeReport).disks[0];
    expect(r?.attempts[0]?.error).toBe("ata-sanitize-crypto on /dev/sda not finished within 600 s");
    expect(r?.attempts.map((x) => x.method)).toEqual(["ata-sanitize-crypto", "ata-sanitize-block", "metadata"]);
  });
});

describe("SCSI SANITIZE", () => {
  test("the Seagate SAS disk: sanitize crypto started with IMMED, REQUEST SENSE until no progress, verified", async () => {
    const devs = { "/dev/sda": dev() };
    const sense = [SEAGATE_SANITIZING, "Decode parameter data as sense data:\nFixed format, current; Sense key: No Sense\nAdditional sense: No additional sense information\n"];
    const { run, calls, lines } = await wipe(sas, fakeSg(devs["/dev/sda"], SEAGATE_OPCODES, sense), devs);
    expect((run as WipeReport).disks[0]).toMatchObject({ outcome: "wiped", method: "scsi-sanitize-crypto", zeroesChecked: false });
    expect(calls.filter((c) => c[0]?.startsWith("sg_")).map((c) => c.join(" "))).toEqual([
      "sg_opcodes --compact /dev/sda",
      "sg_sanitize --quick --early --crypto /dev/sda",
      "sg_requests /dev/sda",
      "sg_requests /dev/sda",
    ]);
    expect(lines.find((l) => l.event === "disk.wipe.progress")).toMatchObject({ method: "scsi-sanitize-crypto", progress: 0.0378 });
  });

  test("a drive whose sanitize fails: the sense says so, the next method runs", async () => {
    const devs = { "/dev/sda": dev() };
    const { run } = await wipe(
      sas,
      fakeSg(devs["/dev/sda"], SEAGATE_OPCODES, ["Fixed format, current; Sense key: Medium Error\nAdditional sense: Sanitize command failed\n"]),
      devs,
    );
    const r = (run as WipeReport).disks[0];
    expect(r?.attempts.map((x) => [x.method, x.ok])).toEqual([
      ["scsi-sanitize-crypto", false],
      ["metadata", true],
    ]);
    expect(r?.attempts[0]?.error).toBe("scsi-sanitize-crypto on /dev/sda: the drive reports failure");
  });
});
