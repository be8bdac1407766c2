/**
 * Where a lab run's time went, read from its console: marks (the firmware, iPXE, the
 * kernel, its initramfs unpack, PID 1, each stage of the agent's flow, the image and the
 * installer inside the install stage, kexec, the installed OS), each phase lasting to
 * the next mark. As a text table (the lab's summary) and as an SVG bar chart
 * (build/lab/timeline.svg). Pure.
 */
import { agentRecord, type ConsoleLine } from "./serial-console.ts";

export interface Mark {
  readonly name: string;
  /** Console time (ms since QEMU started). */
  readonly ms: number;
}

/** The agent's stage names as a person reads them. */
const STAGE_NAMES: Readonly<Record<string, string>> = {
  network: "network",
  clock: "clock",
  boot: "metal-boot",
  api: "apiserver",
  image: "image probe",
  handoff: "handoff",
  register: "Register",
  wipe: "wipe",
  wait: "Wait",
  layout: "layout",
  install: "image",
  installed: "InstallationSucceeded",
  kexec: "kexec",
};

/** The marks in console order; each kind once (the first), the installed OS's kernel after kexec. */
export function timelineMarks(lines: readonly ConsoleLine[]): Mark[] {
  const marks: Mark[] = [{ name: "firmware", ms: 0 }];
  const seen = new Set<string>(["firmware"]);
  const add = (name: string, ms: number): void => {
    if (seen.has(name)) return;
    seen.add(name);
    marks.push({ name, ms });
  };
  for (const l of lines) {
    const r = agentRecord(l.text);
    if (r) {
      if (r.event === "agent.start" && !seen.has("kexec")) add("PID 1", l.ms);
      else if (r.event === "agent.stage" && typeof r.stage === "string" && r.debugHang !== true) add(STAGE_NAMES[r.stage] ?? r.stage, l.ms);
      else if (r.event === "install.installer.start") add("installer", l.ms);
      continue;
    }
    if (/\biPXE\b/.test(l.text)) add("iPXE", l.ms);
    else if (/Linux version \d/.test(l.text)) add(seen.has("kexec") ? "installed OS" : "kernel", l.ms);
    else if (/Trying to unpack rootfs image as initramfs/.test(l.text) && !seen.has("kexec")) add("unpack", l.ms);
    else if (/Freeing initrd memory/.test(l.text) && !seen.has("kexec")) add("kernel init", l.ms);
  }
  return marks;
}

export interface Phase {
  readonly name: string;
  readonly startMs: number;
  readonly ms: number;
}

/** Each mark's phase: from it to the next mark, the last to `endMs`. */
export function phases(marks: readonly Mark[], endMs: number): Phase[] {
  return marks.map((m, i) => ({ name: m.name, startMs: m.ms, ms: Math.max(0, (marks[i + 1]?.ms ?? endMs) - m.ms) }));
}

const s = (ms: number): string => (ms / 1000).toFixed(1);

/** The table: phase, start, how long, a bar of `#` per second (at most 60). */
export function timelineTable(ps: readonly Phase[]): string {
  const w = Math.max(5, ...ps.map((p) => p.name.length));
  const total = ps.reduce((a, p) => a + p.ms, 0);
  const rows = ps.map((p) => `${p.name.padEnd(w)}  ${s(p.startMs).padStart(6)}  ${s(p.ms).padStart(6)}  ${"#".repeat(Math.min(60, Math.round(p.ms / 1000)))}`);
  return [`${"phase".padEnd(w)}  ${"at s".padStart(6)}  ${"took s".padStart(6)}`, ...rows, `${"total".padEnd(w)}  ${"".padStart(6)}  ${s(total).padStart(6)}`].join("\n");
}

const esc = (t: string): string => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A Gantt-like SVG: one row per phase, a bar from its start for its length, a seconds axis. */
export function timelineSvg(ps: readonly Phase[], title: string): string {
  const endMs = Math.max(1, ...ps.map((p) => p.startMs + p.ms));
  const left = 170;
  const width = 900;
  const rowH = 22;
  const top = 40;
  const plot = width - left - 70;
  const x = (ms: number): number => left + (ms / endMs) * plot;
  const stepS = endMs > 120_000 ? 20 : endMs > 40_000 ? 10 : 5;
  const ticks: string[] = [];
  for (let t = 0; t * 1000 <= endMs; t += stepS) {
    ticks.push(`<line x1="${x(t * 1000).toFixed(1)}" y1="${top - 5}" x2="${x(t * 1000).toFixed(1)}" y2="${top + ps.length * rowH}" stroke="#ddd"/>`);
    ticks.push(`<text x="${x(t * 1000).toFixed(1)}" y="${top - 10}" font-size="11" text-anchor="middle" fill="#555">${t} s</text>`);
  }
  const bars = ps.map((p, i) => {
    const y = top + i * rowH;
    const w = Math.max(1, x(p.startMs + p.ms) - x(p.startMs));
    return [
      `<text x="${left - 8}" y="${y + 15}" font-size="12" text-anchor="end">${esc(p.name)}</text>`,
      `<rect x="${x(p.startMs).toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="hsl(${(i * 47) % 360},55%,55%)"/>`,
      `<text x="${(x(p.startMs) + w + 4).toFixed(1)}" y="${y + 15}" font-size="11" fill="#333">${s(p.ms)} s</text>`,
    ].join("");
  });
  const height = top + ps.length * rowH + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`,
    ...ticks,
    ...bars,
    "</svg>",
    "",
  ].join("\n");
}
