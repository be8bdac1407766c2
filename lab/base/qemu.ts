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

/** A NIC per tap, in order (ids n0, n1, ...): the tap without scripts, the device with its MAC and no option ROM. */
export function tapNicArgs(model: "virtio" | "e1000", nics: readonly { readonly tap: string; readonly mac: string }[]): string[] {
  return nics.flatMap((n, i) => [
    "-netdev",
    `tap,id=n${i},ifname=${n.tap},script=no,downscript=no`,
    "-device",
    `${model === "virtio" ? "virtio-net-pci" : "e1000"},netdev=n${i},mac=${n.mac},romfile=`,
  ]);
}
