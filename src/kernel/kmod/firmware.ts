/**
 * modules.firmware: the firmware files each module of the image may ask for (modinfo's
 * `firmware=` fields), one `module: path path ...` line per module that names any.
 * The initramfs build writes it; PID 1 checks it against /lib/firmware after loading a
 * module, so a driver whose firmware is not in the image is logged by name. Pure.
 */
import { ModuleError, normaliseModuleName } from "./names.ts";

export type FirmwareMap = ReadonlyMap<string, readonly string[]>;

export function renderModulesFirmware(map: FirmwareMap): string {
  return [...map.entries()]
    .filter(([, fw]) => fw.length > 0)
    .map(([m, fw]) => `${m}: ${fw.join(" ")}\n`)
    .join("");
}

export function parseModulesFirmware(text: string, source = "modules.firmware"): Map<string, string[]> {
  const out = new Map<string, string[]>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new ModuleError(`${source}:${i + 1}: expected "module: firmware ...", got ${JSON.stringify(line.slice(0, 80))}`);
    const files = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .filter((f) => f !== "");
    if (files.some((f) => f.startsWith("/") || f.split("/").includes(".."))) throw new ModuleError(`${source}:${i + 1}: firmware paths are relative to /lib/firmware`);
    out.set(normaliseModuleName(line.slice(0, colon)), files);
  });
  return out;
}

/** modinfo's `-F firmware` output: one name per line. */
export function parseModinfoFirmware(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}
