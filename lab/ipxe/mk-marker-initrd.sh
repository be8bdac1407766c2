#!/usr/bin/env bash
# lab/ipxe/mk-marker-initrd.sh <version> <out.img>: a busybox-only initrd (gzip'd
# cpio newc, owner 0:0, fixed dates) with the marker /init, Debian's virtio-net modules
# and its version in /etc/initrd-version. Same inputs, same bytes.
set -euo pipefail
version=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
KVER=${KVER:-$(basename "$(ls -d /lib/modules/*/ | sort -V | tail -n 1)")}
BUSYBOX=${BUSYBOX:-/bin/busybox}
[[ $version =~ ^[A-Za-z0-9._-]{1,40}$ ]] || { echo "mk-marker-initrd: version $version: expected letters, digits, . _ -" >&2; exit 2; }
file "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' || { echo "mk-marker-initrd: $BUSYBOX: expected a static busybox (apt-get install busybox-static)" >&2; exit 2; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,etc,lib/modules}
install -m 0755 "$BUSYBOX" "$root/bin/busybox"
install -m 0755 "$here/marker/init" "$root/init"
printf '%s\n' "$version" > "$root/etc/initrd-version"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net; do
  ko=$(find "/lib/modules/$KVER/kernel" -name "$m.ko*" | head -n 1)
  [[ -n $ko ]] || continue # built into the kernel
  case $ko in
    *.xz) xz -dc "$ko" > "$root/lib/modules/$m.ko" ;;
    *.zst) zstd -qdc "$ko" > "$root/lib/modules/$m.ko" ;;
    *) cp "$ko" "$root/lib/modules/$m.ko" ;;
  esac
done
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -9n > "$out.tmp"
mv "$out.tmp" "$out"
