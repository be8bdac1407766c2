/**
 * PCI vendor ids -> names for the vendors met in servers. The initramfs has no
 * pci.ids database (and no lspci); an id not listed here is reported as the id.
 */
export const PCI_VENDORS: Readonly<Record<string, string>> = {
  "0x1002": "AMD",
  "0x1022": "AMD",
  "0x102b": "Matrox",
  "0x1077": "QLogic",
  "0x10de": "NVIDIA",
  "0x10df": "Emulex",
  "0x1137": "Cisco",
  "0x14e4": "Broadcom",
  "0x15b3": "Mellanox",
  "0x1924": "Solarflare",
  "0x19a2": "Emulex",
  "0x19ee": "Netronome",
  "0x1a03": "ASPEED",
  "0x1af4": "Red Hat (virtio)",
  "0x1d0f": "Amazon",
  "0x1fc9": "Tehuti",
  "0x8086": "Intel",
};

export function pciVendorName(id: string | undefined): string {
  if (!id) return "";
  return PCI_VENDORS[id.toLowerCase()] ?? id.toLowerCase();
}
