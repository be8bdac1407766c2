/**
 * The exit code table. README.md "Exit codes" (the names by tens) and docs/exit-codes.md
 * (each meaning) are generated from it (`make docs`), and a test checks that they agree. Codes are grouped by stage: 1x network, 2x metal-boot
 * and apiserver, 3x image cache and hand-off, 4x kernel config, 5x image install,
 * installer and kexec, 6x disks.
 */
export const EXIT_CODES = {
  ok: { exit: 0, meaning: "success" },
  internal: { exit: 1, meaning: "unexpected internal error (a bug: please report the log)" },
  usage: { exit: 2, meaning: "bad command line, kernel cmdline parameter or configuration" },
  no_interface: { exit: 10, meaning: "no network interface matched the selection" },
  net_timeout: { exit: 11, meaning: "network not ready before the timeout (the message names each interface's step)" },
  dad_failed: { exit: 12, meaning: "duplicate address detection failed (address already in use on the link)" },
  netlink: { exit: 13, meaning: "rtnetlink or sysctl operation failed" },
  no_carrier: { exit: 14, meaning: "no selected interface has carrier" },
  dns_write: { exit: 15, meaning: "DNS is required (--need-dns, or a metal-boot URL with a host name) but resolv.conf could not be written" },
  dns_name: {
    exit: 16,
    meaning:
      "a host name in a URL has no IPv6 address in DNS: NXDOMAIN, no AAAA record, or only A records (the message names the name, the server and which), after retries within the retry window",
  },
  dns_server: {
    exit: 17,
    meaning:
      "the DNS servers from the router advertisements (RDNSS) gave no usable answer: none advertised, SERVFAIL, REFUSED, not listening, or silent within the bound (the message names each server and what it did), after retries within the retry window",
  },
  metal_boot: {
    exit: 20,
    meaning:
      "no config/token from metal-boot (it answered 404 or another 4xx: it serves /config/<uuid> for any machine, so check METAL_BOOT_URL), or no machine UUID (neither product_uuid nor product_serial holds one)",
  },
  auth: { exit: 21, meaning: "authentication refused (401/403, unauthenticated, permission_denied)" },
  tls: { exit: 22, meaning: "TLS failure (certificate not trusted, wrong name, handshake)" },
  unreachable: { exit: 23, meaning: "a server could not be reached within the retry bound" },
  bad_answer: { exit: 24, meaning: "a server answered something that does not match the expected schema" },
  api_error: { exit: 25, meaning: "the apiserver answered with an error (connect error code in the message)" },
  wait_timeout: { exit: 26, meaning: "no allocation arrived within METAL_WAIT_TIMEOUT (BootService/Wait)" },
  bmc_backwards: {
    exit: 27,
    meaning:
      "not registered: the metal BMC user is on the BMC from an earlier boot (the apiserver holds its credentials) but could not be written now, and Register would replace the stored BMC record with none",
  },
  image_cache: { exit: 30, meaning: "image cache probe failed (missing image, checksum sidecar, or mismatch)" },
  handoff: { exit: 31, meaning: "hand-off failed (cannot write handoff.json or exec the next stage)" },
  kconfig_failed: { exit: 40, meaning: "kernel config check: a required option is missing or wrong" },
  kconfig_input: { exit: 41, meaning: "kernel config check: the .config or module list cannot be read or parsed" },
  image_download: { exit: 50, meaning: "image download failed within the retry bound (status, cut, stall), or no checksum sidecar could be read" },
  image_checksum: { exit: 51, meaning: "image checksum mismatch, also after one retry from scratch" },
  image_unpack: { exit: 52, meaning: "the image (checksum right) could not be unpacked: not a tar.lz4, or tar/lz4 failed" },
  disk_full: { exit: 53, meaning: "the target filesystem ran out of space while the image was unpacked (not retried)" },
  installer: {
    exit: 54,
    meaning:
      "the image's installer failed, timed out, or left no valid /etc/metal/boot-info.yaml (the message names the os-installer task that failed, its error, the exit status and the last output lines)",
  },
  kexec: { exit: 55, meaning: "kexec into the installed kernel failed and so did the fallback reboot" },
  boot_order: {
    exit: 57,
    meaning:
      "UEFI: no boot entry can be made to boot the installed OS: no ESP mounted at <root>/boot/efi (or not FAT, not a GPT partition or a RAID 1 of them), no loader file on it, no bootloader_id; or the EFI boot variables could not be read or written",
  },
  oci_image: {
    exit: 58,
    meaning:
      "the OCI image cannot be installed: no manifest for this machine's platform, a manifest or config too large or malformed, a layer of an unknown, foreign or non-distributable media type, a whiteout that names no file (the message names the document or layer)",
  },
  oci_registry: {
    exit: 59,
    meaning: "the OCI registry refused a manifest, token or blob request for a reason other than credentials (the message names the request and the status)",
  },
  reboot: { exit: 56, meaning: "the planned reboot while waiting for an allocation failed: reboot(2) refused" },
  wipe_failed: { exit: 60, meaning: "a disk could not be wiped (the message names the disk and the method that failed)" },
  layout_refused: { exit: 61, meaning: "the filesystem layout is invalid or does not fit the disks (refused before anything was written)" },
  layout_failed: { exit: 62, meaning: "a step of the filesystem layout failed (the message names the step)" },
  disks_guarded: { exit: 63, meaning: "the built-in flow refused to wipe or partition the disks: / is not the agent's initramfs (the message says what / is)" },
  wipe_drive_locked: {
    exit: 64,
    meaning:
      "a disk is ATA-locked: by a password the agent does not know, or left so by a failed security erase whose one-time password could not clear it again (the message names the disk and its security state; it needs unlocking by a person, e.g. with the master password, or a power cycle)",
  },
} as const satisfies Record<string, { exit: number; meaning: string }>;

export type ErrorCode = Exclude<keyof typeof EXIT_CODES, "ok">;

export function exitCodeFor(code: ErrorCode | "ok"): number {
  return EXIT_CODES[code].exit;
}
