/**
 * Kernel module names, one parser for every place that reads them (the initramfs
 * build, PID 1, `kconfig check --modules`): a comma list (`virtio_net,e1000`), a list
 * file (names, `#` comments, or modules.dep / modules.order lines with paths), or the
 * file names under a modules directory (`*.ko`, `*.ko.xz`, `*.ko.zst`, `*.ko.gz`).
 * Names are normalised the way modprobe compares them: `-` and `_` are the same
 * (nvme-core.ko is module nvme_core). Pure; errors are ModuleError naming the input.
 */

export class ModuleError extends Error {
  override readonly name = "ModuleError";
}

const MODULE_NAME = /^[A-Za-z0-9_-]+$/;
const MODULE_FILE = /\.ko(?:\.(?:xz|zst|gz))?$/;

export function normaliseModuleName(name: string): string {
  return name.replaceAll("-", "_");
}

export function isModuleName(s: string): boolean {
  return MODULE_NAME.test(s);
}

/** Whether a path names a module file (plain or compressed). */
export function isModuleFile(path: string): boolean {
  return MODULE_FILE.test(path);
}

/** The same path with the compression suffix dropped (the image holds plain .ko files). */
export function plainModulePath(path: string): string {
  return path.replace(MODULE_FILE, ".ko");
}

/** The module name of a path like kernel/drivers/nvme/host/nvme-core.ko.zst, or undefined for other files. */
export function moduleNameOfFile(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (!MODULE_FILE.test(base)) return undefined;
  const name = base.replace(MODULE_FILE, "");
  return MODULE_NAME.test(name) ? normaliseModuleName(name) : undefined;
}

function nameOfToken(token: string): string | undefined {
  const base = token.slice(token.lastIndexOf("/") + 1).replace(MODULE_FILE, "");
  return MODULE_NAME.test(base) ? normaliseModuleName(base) : undefined;
}

/**
 * Parses a module list file. A line is a module name, several names separated by
 * spaces or commas, or a modules.dep line (`path/a.ko: path/b.ko ...`), of which only
 * the module before the colon counts (its dependencies have lines of their own).
 */
export function parseModuleList(text: string, source: string): string[] {
  const names: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    let line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    const colon = line.indexOf(":");
    if (colon >= 0) line = line.slice(0, colon);
    for (const token of line.split(/[\s,]+/)) {
      if (token === "") continue;
      const name = nameOfToken(token);
      if (name === undefined) {
        throw new ModuleError(
          `${source}:${i + 1}: ${JSON.stringify(token.slice(0, 80))} is not a module name (expected names like virtio_net, one per line, or modules.dep lines)`,
        );
      }
      names.push(name);
    }
  });
  return names;
}

/** Parses `--modules a,b,c`. */
export function parseModuleArg(arg: string): string[] {
  return arg
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "")
    .map((t) => {
      if (!MODULE_NAME.test(t)) {
        throw new ModuleError(
          `--modules: ${JSON.stringify(t.slice(0, 80))} is not a module name (expected a comma list like virtio_net,e1000, a list file or a modules directory)`,
        );
      }
      return normaliseModuleName(t);
    });
}

/** Whether `--modules` names a path (a list file or directory) rather than a comma list of names. */
export function isModulePath(arg: string): boolean {
  return arg.includes("/") || arg.includes(".");
}
