/**
 * The one QEMU machine every lab and e2e boot starts from: q35, TCG with `-cpu max` (no
 * KVM here), one vCPU, no default devices or user config, no display, the serial console
 * on stdio (the tests read it), and `-no-reboot` so a guest's reboot ends QEMU and the
 * test sees it. Each caller adds its firmware, kernel or disks, NICs.
 */
export function qemuMachineArgv(memoryMiB: number): string[] {
  return [
    "qemu-system-x86_64",
    "-M",
    "q35",
    "-cpu",
    "max",
    "-smp",
    "1",
    "-m",
    String(memoryMiB),
    "-nodefaults",
    "-no-user-config",
    "-display",
    "none",
    "-no-reboot",
    "-serial",
    "stdio",
  ];
}
