#!/bin/sh
# Unpacks Debian's firmware packages (initramfs/firmware.list) into $1/root, without
# touching the host's apt configuration: a private sources list for bookworm's
# non-free-firmware component, signed by the host's Debian archive keyring, with its
# own lists and cache under $1. apt verifies the Release signature and every package's
# SHA256. The initramfs build then takes only the files its modules name.
#   sh initramfs/firmware.sh build/firmware
set -eu
mkdir -p "$1" && out=$(cd "$1" && pwd)
list=$(dirname "$0")/firmware.list
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mkdir -p "$out/lists/partial" "$out/cache/archives/partial" "$out/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite non-free-firmware" > "$out/sources.list"
apt_opts="-o Dir::Etc::SourceList=$out/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$out/lists -o Dir::Cache=$out/cache -o APT::Sandbox::User=root -q"
# shellcheck disable=SC2086
apt-get $apt_opts update >/dev/null
pkgs=$(sed 's/#.*//' "$list" | tr -s ' \n' ' ')
rm -rf "$out/root" && mkdir -p "$out/root"
# shellcheck disable=SC2086
(cd "$out/debs" && apt-get $apt_opts download $pkgs >/dev/null)
for deb in "$out"/debs/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
echo "firmware: $(ls "$out/debs" | tr '\n' ' ')-> $out/root/lib/firmware"
