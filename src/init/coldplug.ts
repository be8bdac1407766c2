/**
 * Which modules PID 1 loads, decided from the devices present (coldplug, as udev does
 * at boot): every device's modalias (`/sys/bus/<bus>/devices/<dev>/modalias`) is
 * matched against the image's modules.alias; a module matched by a device not yet
 * driven is loaded with its dependencies. Loading a bus driver makes new devices
 * (virtio_pci makes the virtio devices virtio_net drives), so PID 1 scans again
 * until a round loads nothing. The boot list (modules.load) holds what has no device
 * modalias and is loaded first. Pure.
 */
import type { AliasMatcher } from "../kernel/kmod/alias.ts";
import type { ModuleInfo } from "../kernel/kmod/dep.ts";
import { planModuleLoad } from "../kernel/kmod/dep.ts";
import type { Softdeps } from "../kernel/kmod/softdep.ts";

export interface DeviceAlias {
  /** The device's sysfs directory, e.g. /sys/bus/pci/devices/0000:00:02.0. */
  readonly device: string;
  readonly modalias: string;
}

/** Why a module is loaded: the boot list, a device, or as a dependency of another. */
export type LoadReason =
  | { readonly kind: "boot" }
  | { readonly kind: "device"; readonly device: string; readonly modalias: string }
  | { readonly kind: "dependency"; readonly of: string };

export interface LoadStep {
  readonly module: ModuleInfo;
  readonly reason: LoadReason;
}

/** The modules the devices ask for that are not yet handled (first device per module wins). */
export function wantedByDevices(matcher: AliasMatcher, devices: readonly DeviceAlias[], handled: ReadonlySet<string>): { module: string; device: DeviceAlias }[] {
  const out = new Map<string, DeviceAlias>();
  for (const d of devices) for (const m of matcher.modulesFor(d.modalias)) if (!handled.has(m) && !out.has(m)) out.set(m, d);
  return [...out.entries()].map(([module, device]) => ({ module, device }));
}

/**
 * The load steps for `wanted`, each after its dependencies and its pre-softdeps
 * (modules.softdep: ext4 wants a crc32c implementation first), skipping what is
 * handled (loaded or failed before). Names missing from modules.dep throw (the image
 * is broken).
 */
export function loadSteps(
  dep: ReadonlyMap<string, ModuleInfo>,
  wanted: readonly { module: string; reason: LoadReason }[],
  handled: ReadonlySet<string>,
  softdeps: Softdeps = new Map(),
): LoadStep[] {
  const steps: LoadStep[] = [];
  const seen = new Set(handled);
  const visiting = new Set<string>();
  const visit = (name: string, reason: LoadReason): void => {
    for (const m of planModuleLoad(dep, [name]).load) {
      if (seen.has(m.name) || visiting.has(m.name)) continue;
      visiting.add(m.name);
      for (const s of softdeps.get(m.name) ?? []) visit(s, { kind: "dependency", of: m.name });
      visiting.delete(m.name);
      if (seen.has(m.name)) continue;
      seen.add(m.name);
      steps.push({ module: m, reason: m.name === name ? reason : { kind: "dependency", of: name } });
    }
  };
  for (const w of wanted) visit(w.module, w.reason);
  return steps;
}

/** Firmware files a loaded module names that the image lacks (the kernel also takes name.xz). */
export function missingFirmware(files: readonly string[], present: (path: string) => boolean): string[] {
  return files.filter((f) => !present(`/lib/firmware/${f}`) && !present(`/lib/firmware/${f}.xz`));
}
