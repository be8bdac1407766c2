#!/usr/bin/env bash
# ipxe/fetch-ipxe-efi.sh <out-dir>: Debian's UEFI iPXE for the boot media, from the
# `ipxe` package of Debian 13 (trixie), pinned by version and SHA-256.
#
# Why not bookworm's: its ipxe (1.0.0+git-20190125) ignores an autoexec.ipxe beside it
# (measured under OVMF: it goes straight to DHCP autoboot), and Debian's mirror serves
# no source packages here, so it cannot be rebuilt with the script embedded. trixie's
# (1.21.1+git20250501) runs `autoexec.ipxe` from the directory it was loaded from
# (docs/boot-chain.md). The package is architecture-independent files only, fetched
# with apt-get from a private source list under <out-dir>/apt (the host's apt
# configuration is not touched) and unpacked with dpkg-deb, not installed.
set -euo pipefail
mkdir -p "$1"; out=$(cd "$1" && pwd)
IPXE_EFI_VERSION=${IPXE_EFI_VERSION:-1.21.1+git20250501.dad20602+dfsg-1}
IPXE_EFI_SHA256=${IPXE_EFI_SHA256:-eeaca79dbde0fb86c102bf1d362c6f6a67ed0ddab38b3dd12e1b332339f5dd99}
IPXE_EFI_SUITE=${IPXE_EFI_SUITE:-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $KEYRING ]] || { echo "fetch-ipxe-efi: $KEYRING: missing (apt-get install debian-archive-keyring)" >&2; exit 2; }

apt=$out/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$out/deb"
echo "deb [signed-by=$KEYRING] $MIRROR $IPXE_EFI_SUITE main" > "$apt/sources.list"
opts=(-q -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
deb=$out/deb/ipxe_${IPXE_EFI_VERSION}_all.deb
if ! echo "$IPXE_EFI_SHA256  $deb" | sha256sum -c --status 2>/dev/null; then
  apt-get "${opts[@]}" update >&2
  (cd "$out/deb" && apt-get "${opts[@]}" download "ipxe=$IPXE_EFI_VERSION" >&2)
  f=$(ls "$out"/deb/ipxe_*"${IPXE_EFI_VERSION#*:}"*_all.deb)
  [[ $f == "$deb" ]] || mv "$f" "$deb"
fi
echo "$IPXE_EFI_SHA256  $deb" | sha256sum -c --status || {
  echo "fetch-ipxe-efi: $deb: SHA-256 $(sha256sum "$deb" | cut -d' ' -f1), expected $IPXE_EFI_SHA256 (IPXE_EFI_SHA256)" >&2; exit 1; }
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
install -m 0644 "$x/usr/lib/ipxe/ipxe-amd64.efi" "$out/ipxe.efi"
install -m 0644 "$x/usr/lib/ipxe/snponly.efi" "$out/snponly.efi"
echo "fetch-ipxe-efi: $out/ipxe.efi from Debian ipxe $IPXE_EFI_VERSION ($IPXE_EFI_SUITE)" >&2
