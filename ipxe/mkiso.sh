#!/usr/bin/env bash
# ipxe/mkiso.sh <chain.ipxe> <out.iso>: a BIOS-bootable, isohybrid ISO (CD, virtual
# media, USB) with ISOLINUX, Debian's ipxe.lkrn and the chain script. Reproducible:
# every date is SOURCE_DATE_EPOCH (default: the last commit's time), file order is
# fixed, so the same inputs give the same bytes.
set -euo pipefail
script=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
IPXE_LKRN=${IPXE_LKRN:-/usr/lib/ipxe/ipxe.lkrn}
ISOLINUX_DIR=${ISOLINUX_DIR:-/usr/lib/ISOLINUX}
LDLINUX=${LDLINUX:-/usr/lib/syslinux/modules/bios/ldlinux.c32}
: "${SOURCE_DATE_EPOCH:=$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH
for f in "$script" "$IPXE_LKRN" "$ISOLINUX_DIR/isolinux.bin" "$ISOLINUX_DIR/isohdpfx.bin" "$LDLINUX"; do
  [[ -r $f ]] || { echo "mkiso: $f: missing (apt-get install ipxe isolinux syslinux-common)" >&2; exit 2; }
done
head -c 6 "$script" | grep -qx '#!ipxe' || { echo "mkiso: $script: expected an iPXE script starting with #!ipxe" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -m 0644 "$ISOLINUX_DIR/isolinux.bin" "$LDLINUX" "$here/isolinux.cfg" "$stage/"
install -m 0644 "$IPXE_LKRN" "$stage/ipxe.lkrn"
install -m 0644 "$script" "$stage/chain.ipxe"
touch -h -d "@$SOURCE_DATE_EPOCH" "$stage" "$stage"/*

# xorriso reads SOURCE_DATE_EPOCH itself (volume dates, uuid, file dates); the
# explicit options keep that true for older builds too.
xorriso -report_about WARNING -as mkisofs \
  -o "$out.tmp" -V METAL_BOOT -r -J \
  --modification-date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S00)" \
  -b isolinux.bin -c boot.cat -no-emul-boot -boot-load-size 4 -boot-info-table \
  -isohybrid-mbr "$ISOLINUX_DIR/isohdpfx.bin" \
  "$stage"
mv "$out.tmp" "$out"
