#!/usr/bin/env bash
# ipxe/mkiso.sh <chain.ipxe> <out.iso>: an isohybrid ISO (CD, virtual media, USB) that
# boots on BIOS and on UEFI and runs the same chain script on both:
#   BIOS: ISOLINUX -> Debian's ipxe.lkrn with chain.ipxe as its initrd;
#   UEFI: El Torito EFI image efiboot.img (FAT, also a GPT partition for USB sticks)
#         holding EFI/BOOT/BOOTX64.EFI = Debian's UEFI iPXE and EFI/BOOT/autoexec.ipxe =
#         the chain script, which that iPXE runs from the directory it was loaded from.
# Reproducible: every date is SOURCE_DATE_EPOCH (default: the last commit's time), the
# FAT's serial is fixed, file order is fixed, so the same inputs give the same bytes.
set -euo pipefail
script=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
IPXE_LKRN=${IPXE_LKRN:-/usr/lib/ipxe/ipxe.lkrn}
ISOLINUX_DIR=${ISOLINUX_DIR:-/usr/lib/ISOLINUX}
LDLINUX=${LDLINUX:-/usr/lib/syslinux/modules/bios/ldlinux.c32}
# Debian trixie's ipxe.efi (make ipxe-efi; ipxe/fetch-ipxe-efi.sh says why not bookworm's).
IPXE_EFI=${IPXE_EFI:-$here/../build/ipxe-efi/ipxe.efi}
: "${SOURCE_DATE_EPOCH:=$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH
for f in "$script" "$IPXE_LKRN" "$ISOLINUX_DIR/isolinux.bin" "$ISOLINUX_DIR/isohdpfx.bin" "$LDLINUX"; do
  [[ -r $f ]] || { echo "mkiso: $f: missing (apt-get install ipxe isolinux syslinux-common)" >&2; exit 2; }
done
[[ -r $IPXE_EFI ]] || { echo "mkiso: $IPXE_EFI: missing (make ipxe-efi, or IPXE_EFI=<a UEFI iPXE that runs autoexec.ipxe>)" >&2; exit 2; }
for t in mkfs.vfat mmd mcopy; do
  command -v $t >/dev/null || { echo "mkiso: $t: missing (apt-get install dosfstools mtools)" >&2; exit 2; }
done
head -c 6 "$script" | grep -qx '#!ipxe' || { echo "mkiso: $script: expected an iPXE script starting with #!ipxe" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -m 0644 "$ISOLINUX_DIR/isolinux.bin" "$LDLINUX" "$here/isolinux.cfg" "$stage/"
install -m 0644 "$IPXE_LKRN" "$stage/ipxe.lkrn"
install -m 0644 "$script" "$stage/chain.ipxe"

# The UEFI boot image: a FAT file system with fixed serial and dates (mkfs.vfat
# --invariant, mtools honours SOURCE_DATE_EPOCH for what it creates, mcopy -m keeps the
# staged files' dates). Sized to its content plus 256 KiB.
efi=$(mktemp -d)
trap 'rm -rf "$stage" "$efi"' EXIT
install -m 0644 "$IPXE_EFI" "$efi/BOOTX64.EFI"
install -m 0644 "$script" "$efi/autoexec.ipxe"
touch -h -d "@$SOURCE_DATE_EPOCH" "$efi"/*
kib=$(( ($(stat -c %s "$efi/BOOTX64.EFI") + $(stat -c %s "$efi/autoexec.ipxe")) / 1024 + 256 ))
TZ=UTC mkfs.vfat --invariant -i 4d455441 -n METAL_ESP -C "$stage/efiboot.img" "$kib" >/dev/null
TZ=UTC mmd -i "$stage/efiboot.img" ::EFI ::EFI/BOOT
TZ=UTC mcopy -m -i "$stage/efiboot.img" "$efi/BOOTX64.EFI" "$efi/autoexec.ipxe" ::EFI/BOOT/
chmod 0644 "$stage/efiboot.img"
touch -h -d "@$SOURCE_DATE_EPOCH" "$stage" "$stage"/*

# xorriso reads SOURCE_DATE_EPOCH itself (volume dates, uuid, file dates); the
# explicit options keep that true for older builds too.
xorriso -report_about WARNING -as mkisofs \
  -o "$out.tmp" -V METAL_BOOT -r -J \
  --modification-date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S00)" \
  -b isolinux.bin -c boot.cat -no-emul-boot -boot-load-size 4 -boot-info-table \
  -eltorito-alt-boot -e efiboot.img -no-emul-boot -isohybrid-gpt-basdat \
  -isohybrid-mbr "$ISOLINUX_DIR/isohdpfx.bin" \
  "$stage"
mv "$out.tmp" "$out"
