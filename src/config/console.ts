/**
 * The installed OS's serial console when the kernel cmdline names none: by the
 * machine's manufacturer, as pixie's boot script picks the console for metal-hammer
 * (metal-stack/pixie@8b0f1da5 pixiecore/boot.ipxe:26-34: ttyS1, and ttyS0 when
 * iPXE's ${manufacturer}, the SMBIOS system manufacturer, is one of these; Linux shows
 * it as /sys/class/dmi/id/sys_vendor). The lab's metal-boot renders the same rule into
 * its boot.ipxe (lab/ipxe/boot-script.ts). Pure.
 */
export const CONSOLE_TTYS0_MANUFACTURERS = ["Dell Inc.", "Giga Computing", "QEMU", "FUJITSU"] as const;

/** ttyS0 for the manufacturers pixie names (compared exactly, as iPXE's iseq does, after trimming sysfs's newline), else ttyS1. */
export function consoleForManufacturer(manufacturer: string | undefined): "ttyS0" | "ttyS1" {
  return (CONSOLE_TTYS0_MANUFACTURERS as readonly string[]).includes((manufacturer ?? "").trim()) ? "ttyS0" : "ttyS1";
}

/** The installed OS's console: console= of the cmdline (Config.console), else by the manufacturer (read only then). */
export function installedConsole(cmdline: string | undefined, manufacturer: () => string | undefined): string {
  return cmdline ?? consoleForManufacturer(manufacturer());
}
