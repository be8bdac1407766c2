/**
 * The shell of the boot-time kernel check (src/kernel/kconfig/running.ts decides): reads the
 * running release, the module trees the image carries, the files of the running
 * release's tree, and the kernel's config, /proc/config.gz (gunzipped) when the
 * kernel has one, else the copy the initramfs build put at /boot/config-<release>.
 * Every read is bounded (READ_CAPS.kernelConfig, also for the unpacked text).
 * `root` prefixes every path (tests use a directory; PID 1 passes nothing).
 */
import { readdirSync, statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { filesBelow } from "../platform/fs/files-below.ts";
import { formatBytes, READ_CAPS, readBoundedSync, readBoundedTextSync } from "../platform/fs/read-bounded.ts";
import type { RunningKernelFacts } from "../kernel/kconfig/running.ts";
import { imageKernelConfig, MODULES_ROOT, PROC_CONFIG } from "./paths.ts";

const isDir = (p: string): boolean => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The config's text; throws an Error naming the file on a read, size, gzip or UTF-8 problem. */
function readConfig(path: string): string {
  const cap = READ_CAPS.kernelConfig;
  let bytes = readBoundedSync(path, cap);
  if (path.endsWith(".gz")) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: cap });
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new Error(`${path} unpacks to more than the cap of ${formatBytes(cap)} (see docs/bounds.md)`);
      throw new Error(`${path} is not gzip data: ${(e as Error).message}`);
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${path} is not UTF-8 text`);
  }
}

export function readKernelFacts(root = ""): RunningKernelFacts {
  let release: string | undefined;
  try {
    release = readBoundedTextSync(`${root}/proc/sys/kernel/osrelease`, "sysfs").trim() || undefined;
  } catch {
    release = undefined;
  }
  const trees = isDir(`${root}${MODULES_ROOT}`) ? readdirSync(`${root}${MODULES_ROOT}`).filter((d) => isDir(`${root}${MODULES_ROOT}/${d}`)) : [];
  const moduleDir = `${MODULES_ROOT}/${release ?? "?"}`;
  const moduleFiles = release === undefined ? undefined : filesBelow(`${root}${moduleDir}`);
  const searched = [PROC_CONFIG, ...(release === undefined ? [] : [imageKernelConfig(release)])];
  const facts = { release, moduleTrees: trees.sort(), moduleDir, moduleFiles, searched };
  // The first source that exists decides: a broken /proc/config.gz is reported, not replaced by the image's copy.
  for (const source of searched) {
    if (statSync(`${root}${source}`, { throwIfNoEntry: false }) === undefined) continue;
    try {
      return { ...facts, config: { source, text: readConfig(`${root}${source}`) } };
    } catch (e) {
      const msg = (e as Error).message;
      return { ...facts, config: undefined, configError: { source, error: root ? msg.replaceAll(root, "") : msg } };
    }
  }
  return { ...facts, config: undefined };
}
