/**
 * The test OS's installer: a shell script that behaves like metal-stack's os-installer
 * on the contract (metal-stack/os-installer@7ea1c98): it checks the files metal-hammer
 * writes (/etc/metal/machine-details.yaml, machine-allocation.yaml, the legacy
 * install.yaml), writes /etc/metal/boot-info.yaml and a marker, and on UEFI puts GRUB
 * (the image's /usr/lib/testos/BOOTX64.EFI) onto the ESP at /boot/efi. Two shapes:
 *
 * - `efibootmgr` (the test image's own /install.sh): GRUB as EFI/testos/grubx64.efi with
 *   a boot entry "testos" made by efibootmgr and moved last (the agent then puts it first);
 *   the fallback EFI/BOOT/BOOTX64.EFI without efivarfs.
 * - `os-installer` (the installer the test initramfs carries): as os-installer's
 *   GrubInstall does it (pkg/installer/os/common/install_bootloader.go:38-100):
 *   bootloader_id `metal-<ID of /etc/os-release>`, `grub-install --removable`, so
 *   EFI/BOOT/BOOTX64.EFI and no NVRAM entry without RAID; with `raidenabled` also one
 *   efibootmgr entry per ESP partition naming \EFI\<id>\grubx64.efi, a file
 *   --removable does not write.
 *
 * Hostnames steer the failure cases: "fail-install" fails (exit 7, after printing lines),
 * "hang-install" hangs (sleep 600), "daemon-install" leaves a `setsid` daemon holding its
 * stdout ("daemon-hang" then hangs too), "link-bootinfo" and "huge-bootinfo" leave a
 * boot-info.yaml that is a link to /dev/zero or 2 MiB.
 */

export type TestInstallerShape = "efibootmgr" | "os-installer";

const CONTRACT_AND_BOOT_INFO = `d=/etc/metal
[ -s $d/machine-details.yaml ] || { echo "missing $d/machine-details.yaml"; exit 3; }
[ -s $d/machine-allocation.yaml ] || { echo "missing $d/machine-allocation.yaml"; exit 3; }
[ -s $d/install.yaml ] || { echo "missing $d/install.yaml"; exit 3; }
grep -q '"root_uuid"' $d/machine-details.yaml || { echo "machine-details.yaml has no root_uuid"; exit 3; }
grep -q '"password"' $d/machine-details.yaml || { echo "machine-details.yaml has no password"; exit 3; }
# A careless installer echoes the secret: the agent's log must not show it.
echo "installer: read $(grep '"password"' $d/machine-details.yaml)"
grep -q '"auth_key": "[^"]' $d/install.yaml && echo "installer: vpn $(grep '"auth_key"' $d/install.yaml)"
[ -c /dev/null ] || { echo "/dev is not mounted"; exit 3; }
[ -r /proc/self/stat ] || { echo "/proc is not mounted"; exit 3; }
[ -d /sys/kernel ] || { echo "/sys is not mounted"; exit 3; }
if grep -q '"hostname": "fail-install"' $d/machine-allocation.yaml; then
  echo "installer: step 1 ok"
  echo "installer: grub-install failed: no EFI partition"
  exit 7
fi
# A careless installer that leaves a daemon (its own session, holding stdout), and looks at PID 1.
if grep -q '"hostname": "daemon-' $d/machine-allocation.yaml; then
  echo "installer: pid 1 is $(tr '\\000' ' ' < /proc/1/cmdline)"
  setsid sh -c 'while :; do sleep 1; done' &
  echo "installer: daemon started"
fi
if grep -q '"hostname": "daemon-hang"' $d/machine-allocation.yaml; then
  echo "installer: waiting forever"
  sleep 600
fi
if grep -q '"hostname": "hang-install"' $d/machine-allocation.yaml; then
  echo "installer: waiting forever"
  sleep 600
fi
# Hostile boot-info.yaml: a link to /dev/zero (absolute: inside the root, not the agent's), or 2 MiB.
if grep -q '"hostname": "link-bootinfo"' $d/machine-allocation.yaml; then
  ln -sf /dev/zero $d/boot-info.yaml
  exit 0
fi
if grep -q '"hostname": "huge-bootinfo"' $d/machine-allocation.yaml; then
  dd if=/dev/zero of=$d/boot-info.yaml bs=1048576 count=2 2>/dev/null
  exit 0
fi
id=$(sed -n 's/^ *"id": "\\(.*\\)",$/\\1/p' $d/machine-details.yaml)
initrd=""
[ ! -f /boot/initrd.img ] || initrd=/boot/initrd.img
cat > $d/boot-info.yaml <<EOT
kernel: /boot/vmlinuz
initrd: "\${initrd}"
cmdline: "console=ttyS0 panic=-1 TESTOS_MARKER=installed-\${id}"
bootloader_id: \${BOOTLOADER_ID}
EOT
echo "installed \${id}" > /installed-marker
`;

/** GRUB on the ESP as the image's /install.sh has always done it. */
const UEFI_EFIBOOTMGR = `# UEFI (an image built with --efi, a layout with an ESP at /boot/efi): GRUB on the ESP and
# its config on the root. On a UEFI machine (efivarfs in the chroot) as grub-install
# --bootloader-id=testos does it: EFI/testos/grubx64.efi and a boot entry "testos" made
# by efibootmgr, moved to the end of BootOrder (the agent then sets the order); else the removable-media fallback
# loader EFI/BOOT/BOOTX64.EFI, which firmware finds on a disk by itself.
if [ -f /usr/lib/testos/BOOTX64.EFI ] && [ -d /boot/efi ]; then
  mkdir -p /boot/grub
  echo "linux /boot/vmlinuz console=ttyS0 panic=-1 TESTOS_MARKER=disk-boot-\${id}" > /boot/grub/grub.cfg
  [ -z "$initrd" ] || echo "initrd $initrd" >> /boot/grub/grub.cfg
  echo "boot" >> /boot/grub/grub.cfg
  if [ -d /sys/firmware/efi/efivars ] && [ -x /usr/bin/efibootmgr ]; then
    part=$(sed -n 's|^\\(/dev/[^ ]*\\) /boot/efi .*|\\1|p' /proc/self/mounts)
    [ -b "$part" ] || { echo "installer: no block device mounted at /boot/efi"; exit 4; }
    disk=$(echo "$part" | sed 's/p\\{0,1\\}[0-9]*$//')
    num=$(echo "$part" | sed 's/^.*[^0-9]//')
    mkdir -p /boot/efi/EFI/testos
    cp /usr/lib/testos/BOOTX64.EFI /boot/efi/EFI/testos/grubx64.efi
    efibootmgr --create --disk "$disk" --part "$num" --label testos --loader '\\EFI\\testos\\grubx64.efi' || { echo "installer: efibootmgr failed"; exit 5; }
    # efibootmgr puts the new entry first; move it last, so that the agent's boot order
    # step is what puts it first (firmware or a BMC may have reordered on a real server).
    order=$(efibootmgr | sed -n 's/^BootOrder: //p')
    rest=$(echo "$order" | sed 's/^[^,]*,\\{0,1\\}//')
    [ -z "$rest" ] || efibootmgr --bootorder "$rest,$(echo "$order" | sed 's/,.*//')" > /dev/null
    echo "installer: UEFI boot entry testos written for $disk partition $num: /boot/efi/EFI/testos/grubx64.efi"
  else
    mkdir -p /boot/efi/EFI/BOOT
    cp /usr/lib/testos/BOOTX64.EFI /boot/efi/EFI/BOOT/BOOTX64.EFI
    echo "installer: UEFI boot loader written to /boot/efi/EFI/BOOT/BOOTX64.EFI"
  fi
fi
echo "installer: done for \${id}"
`;

/** GRUB on the ESP as os-installer does it: --removable, efibootmgr entries only with RAID. */
const UEFI_OS_INSTALLER = `# UEFI as os-installer: grub-install --removable writes EFI/BOOT/BOOTX64.EFI; NVRAM
# entries only with RAID (efibootmgr per ESP, naming a loader --removable does not write).
if [ -f /usr/lib/testos/BOOTX64.EFI ] && [ -d /boot/efi ]; then
  mkdir -p /boot/grub /boot/efi/EFI/BOOT
  echo "linux /boot/vmlinuz console=ttyS0 panic=-1 TESTOS_MARKER=disk-boot-\${id}" > /boot/grub/grub.cfg
  [ -z "$initrd" ] || echo "initrd $initrd" >> /boot/grub/grub.cfg
  echo "boot" >> /boot/grub/grub.cfg
  cp /usr/lib/testos/BOOTX64.EFI /boot/efi/EFI/BOOT/BOOTX64.EFI
  echo "installer: grub-install --removable --bootloader-id=\${BOOTLOADER_ID}: /boot/efi/EFI/BOOT/BOOTX64.EFI"
  if grep -q '"raidenabled": true' $d/machine-details.yaml && [ -d /sys/firmware/efi/efivars ] && [ -x /usr/bin/efibootmgr ]; then
    part=$(sed -n 's|^\\(/dev/[^ ]*\\) /boot/efi .*|\\1|p' /proc/self/mounts)
    for member in $(ls /sys/class/block/$(basename "$part")/slaves 2>/dev/null); do
      efibootmgr -c -d "/dev/$member" -p1 -l "\\\\EFI\\\\\${BOOTLOADER_ID}\\\\grubx64.efi" -L "\${BOOTLOADER_ID}" > /dev/null || { echo "installer: efibootmgr failed"; exit 5; }
      echo "installer: efibootmgr entry \${BOOTLOADER_ID} for /dev/$member"
    done
  fi
fi
echo "installer: done for \${id}"
`;

/** The installer script of a shape (see above). */
export function testInstallerScript(shape: TestInstallerShape): string {
  const id = shape === "efibootmgr" ? "BOOTLOADER_ID=testos" : `BOOTLOADER_ID=metal-$(sed -n 's/^ID=//p' /etc/os-release)`;
  return [
    "#!/bin/sh",
    `# Test OS installer (${shape} shape): checks the contract files metal-hammer wrote, writes boot-info.yaml.`,
    "set -e",
    id,
    CONTRACT_AND_BOOT_INFO + (shape === "efibootmgr" ? UEFI_EFIBOOTMGR : UEFI_OS_INSTALLER),
  ].join("\n");
}

if (import.meta.main) {
  // The installer the test initramfs carries: bun lab/images/test-installer.ts --shape os-installer --out PATH
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { shape: { type: "string", default: "os-installer" }, out: { type: "string" } } });
  if (!values.out || !["efibootmgr", "os-installer"].includes(values.shape as string)) {
    console.error("usage: bun lab/images/test-installer.ts [--shape os-installer|efibootmgr] --out PATH");
    process.exit(2);
  }
  await Bun.write(values.out, testInstallerScript(values.shape as TestInstallerShape));
  (await import("node:fs")).chmodSync(values.out, 0o755);
}
