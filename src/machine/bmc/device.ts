/** A BMC is present when the kernel made /dev/ipmi<N> (ipmi_si bound an interface, ipmi_devintf loaded), as go-hal checks (metal-stack/go-hal@4ca05b53 internal/ipmi/ipmitool.go:179-185). */
import { readdir } from "node:fs/promises";

export async function bmcDevicePresent(devRoot: string): Promise<boolean> {
  const names = await readdir(devRoot).catch(() => [] as string[]);
  return names.some((n) => /^ipmi\d+$/.test(n));
}
