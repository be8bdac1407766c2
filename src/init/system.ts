/**
 * What PID 1 does to the machine, behind one interface: the supervisor (supervisor.ts)
 * only decides, this adapter acts. Tests pass a fake that records calls.
 */
import type { RunningKernelFacts } from "../kernel/kconfig/running.ts";
import type { DeviceAlias } from "./coldplug.ts";
import type { Mount } from "./mounts.ts";
import type { PowerAction } from "./policy.ts";

/** A PCI device as sysfs shows it, with the driver bound to it (null: none). */
export interface PciDevice {
  readonly slot: string;
  /** `8086:10d3` (vendor:device, hex). */
  readonly id: string;
  /** PCI class code, hex without 0x (`020000` Ethernet, `010802` NVMe). */
  readonly class: string;
  readonly driver: string | null;
}

export interface InitSystem {
  /** File text, or undefined when it cannot be read. */
  readText(path: string): Promise<string | undefined>;
  /** Whether a path exists. */
  exists(path: string): boolean;
  /** Creates a directory (and parents) if missing; returns 0 or an errno. */
  mkdir(path: string, mode: number): number;
  /** mount(2); 0 or an errno. */
  mount(m: Mount): number;
  /** Whether fds 0, 1 and 2 are open. */
  stdioOpen(): boolean;
  /** Opens the console onto fds 0-2; 0 or an errno. */
  attachConsole(): number;
  /** The running release, the image's module trees and the kernel's config (kernel-facts.ts). */
  kernelFacts(): RunningKernelFacts;
  /** Every device's modalias under /sys/bus/<bus>/devices/. */
  modaliases(): Promise<DeviceAlias[]>;
  /** /sys/bus/pci/devices with their drivers. */
  pciDevices(): Promise<PciDevice[]>;
  /** finit_module(2) on the file; 0 or an errno. */
  finitModule(path: string): number;
  /** `busybox insmod <path>`; its exit code. */
  insmod(path: string): Promise<number>;
  /** reboot(2) with the action (after sync); returns an errno only if it failed. */
  power(action: PowerAction): number;
  /** Disables Ctrl-Alt-Del rebooting at once, so the kernel sends SIGINT to PID 1 instead. */
  disableCad(): void;
  /** The debug shell on the console; resolves with its exit code. */
  shell(): Promise<number>;
  onSignal(name: string, handler: () => void): void;
  /** Starts reaping orphaned zombies; returns a stop function. */
  startReaper(onReap: (pid: number) => void): () => void;
  sleep(ms: number): Promise<void>;
  now(): number;
}
