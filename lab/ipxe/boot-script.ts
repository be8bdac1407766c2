/**
 * boot.ipxe as metal-boot serves it for one partition (pure): the serial console by
 * the machine's manufacturer, kernel with the partition's cmdline, the partition's
 * initrd, boot. A machine whose source prefix is no partition's gets a refusal (the
 * ISO's chain script then retries, bounded).
 *
 * The console as pixie picks it (metal-stack/pixie@8b0f1da5 pixiecore/boot.ipxe:26-34:
 * ttyS1, ttyS0 for the manufacturers Dell Inc., Giga Computing, QEMU and FUJITSU,
 * from iPXE's ${manufacturer}, the SMBIOS system manufacturer; pixiecore/http.go:202,225:
 * `console=${console},115200n8` first on the kernel line, so a partition's own
 * console= comes later and wins). The agent's default console follows the same rule
 * (src/config/console.ts).
 */
import { CONSOLE_TTYS0_MANUFACTURERS } from "../../src/config/console.ts";
import { cmdlineFor, extraInitrdPath, initrdPath, kernelPath, type Partition } from "./partitions.ts";

/** pixie's console detection in iPXE: ttyS1 unless the manufacturer is one of CONSOLE_TTYS0_MANUFACTURERS. */
export function consoleLines(): string[] {
  return [
    "set console ttyS1",
    // iPXE's iseq compares words: a space in a manufacturer's name is ${sp}, as pixie writes it.
    "set sp:hex 20 && set sp ${sp:string}",
    ...CONSOLE_TTYS0_MANUFACTURERS.map((m) => `iseq \${manufacturer} ${m.replaceAll(" ", "${sp}")} && set console ttyS0 ||`),
  ];
}

export function renderBootScript(p: Partition, publicUrl: string, source: string): string {
  const base = publicUrl.replace(/\/+$/, "");
  return [
    "#!ipxe",
    `# metal-boot (lab stand-in, boot side): partition ${p.name} for ${source}`,
    `echo metal-boot: partition ${p.name}, metal-hammer initrd ${p.initrdVersion}`,
    ...consoleLines(),
    `kernel ${base}${kernelPath(p)} console=\${console},115200n8 ${cmdlineFor(p)}`,
    `initrd ${base}${initrdPath(p)}`,
    ...p.extraInitrds.map((x) => `initrd ${base}${extraInitrdPath(p, x.name)}`),
    "boot",
    "",
  ].join("\n");
}
