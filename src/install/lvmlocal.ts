/**
 * /etc/lvm/lvmlocal.conf for the installed system, with the settings metal-hammer puts
 * there: metal-hammer copies its initramfs's own lvmlocal.conf into the target when the
 * image has /etc/lvm (metal-stack/metal-hammer@ec148e3 cmd/install.go:149-177
 * writeLVMLocalConf, 0600); that file (metal-hammer's lvmlocal.conf at the repository
 * root) turns off LVM's use of udev: no udev synchronisation or udev rules on
 * activation, no device list from udev, no md or multipath component detection (which
 * reads udev's database). Images whose early boot runs LVM without udev (or before
 * udev has settled) keep working with volumes the agent made. Pure: the text only;
 * write-contract.ts writes it, and only into an image that has /etc/lvm, as metal-hammer.
 */

export const LVMLOCAL_PATH = "/etc/lvm/lvmlocal.conf";

/** Section -> setting -> value: the settings above, in lvm.conf(5) names. */
export const LVMLOCAL_SETTINGS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  activation: { udev_sync: 0, udev_rules: 0 },
  devices: { multipath_component_detection: 0, md_component_detection: 0, obtain_device_list_from_udev: 0 },
};

/** The file in lvm.conf(5) syntax: one `section { key = value }` block per section. */
export function lvmLocalConf(settings = LVMLOCAL_SETTINGS): string {
  const blocks = Object.entries(settings).map(
    ([section, kv]) =>
      `${section} {\n${Object.entries(kv)
        .map(([k, v]) => `    ${k} = ${v}\n`)
        .join("")}}\n`,
  );
  return `# Written by metal-hammer: LVM without udev (as metal-hammer's lvmlocal.conf).\n${blocks.join("")}`;
}
