import { describe, expect, test } from "bun:test";
import { phases, timelineMarks, timelineSvg, timelineTable } from "../../../lab/base/timeline.ts";

const rec = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ level: 30, event, ...extra });
const console_ = [
  [0, "SeaBIOS (version 1.16.2-debian-1.16.2-1)"],
  [1200, "iPXE (https://ipxe.org) 00:03.0 CA00 PCI2.10 PnP PMM"],
  [1300, "iPXE 1.21.1+ -- Open Source Network Boot Firmware"],
  [9000, "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)"],
  [10000, "[    0.900000] Trying to unpack rootfs image as initramfs..."],
  [12500, "[    3.400000] Freeing initrd memory: 70000K"],
  [13000, rec("agent.start", { pid: 1 })],
  [13100, rec("agent.stage", { stage: "network" })],
  [15000, rec("agent.stage", { stage: "clock" })],
  [15050, rec("agent.stage", { stage: "boot" })],
  [15400, rec("agent.stage", { stage: "register" })],
  [16000, rec("agent.stage", { stage: "wipe" })],
  [16500, rec("agent.stage", { stage: "wait" })],
  [17000, rec("agent.stage", { stage: "layout" })],
  [18000, rec("agent.stage", { stage: "install" })],
  [21000, rec("install.installer.start")],
  [22000, rec("agent.stage", { stage: "installed" })],
  [22100, rec("agent.stage", { stage: "kexec" })],
  [23000, "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)"],
  [23500, "[    0.500000] Trying to unpack rootfs image as initramfs..."],
  [25000, "testos: up: TESTOS_MARKER=installed-x"],
].map(([ms, text]) => ({ ms: ms as number, text: text as string }));

describe("the lab's timeline", () => {
  test("marks in console order, each phase to the next; the installed OS's kernel after kexec, its unpack not counted again", () => {
    const ps = phases(timelineMarks(console_), 25_500);
    expect(ps.map((p) => [p.name, p.startMs, p.ms])).toEqual([
      ["firmware", 0, 1200],
      ["iPXE", 1200, 7800],
      ["kernel", 9000, 1000],
      ["unpack", 10000, 2500],
      ["kernel init", 12500, 500],
      ["PID 1", 13000, 100],
      ["network", 13100, 1900],
      ["clock", 15000, 50],
      ["metal-boot", 15050, 350],
      ["Register", 15400, 600],
      ["wipe", 16000, 500],
      ["Wait", 16500, 500],
      ["layout", 17000, 1000],
      ["image", 18000, 3000],
      ["installer", 21000, 1000],
      ["InstallationSucceeded", 22000, 100],
      ["kexec", 22100, 900],
      ["installed OS", 23000, 2500],
    ]);
  });

  test("the table has one row per phase and the total; the SVG one bar per phase, names escaped", () => {
    const ps = phases(timelineMarks(console_), 25_500);
    const table = timelineTable(ps).split("\n");
    expect(table[0]).toMatch(/^phase\s+at s\s+took s$/);
    expect(table).toContain("iPXE                      1.2     7.8  ########");
    expect(table.at(-1)).toMatch(/^total\s+25\.5$/);
    const svg = timelineSvg(ps, "lab <run>");
    expect(svg.match(/<rect x=/g)?.length).toBe(ps.length);
    expect(svg).toContain("lab &lt;run&gt;");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });
});
