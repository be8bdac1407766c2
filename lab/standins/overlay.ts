/**
 * Per-run files for the guest without rebuilding the initramfs: a small uncompressed
 * cpio archive put in front of the built one. The kernel unpacks concatenated archives
 * in order (as with early microcode); the uncompressed one must come first because
 * lz4's legacy format has no end marker. Pure.
 */
import { encodeCpio } from "../../initramfs/lib/cpio.ts";
import { composeImage } from "../../initramfs/lib/layout.ts";
import type { GuestFile } from "./servers.ts";

export function overlayCpio(files: readonly GuestFile[], mtime = 0): Uint8Array {
  const img = composeImage(files.map((f) => ({ kind: "file", path: f.path, mode: 0o644, size: f.data.length, source: { kind: "bytes", data: f.data }, group: "lab" })));
  const data = new Map(files.map((f) => [f.path.replace(/^\/+/, ""), f.data]));
  return encodeCpio(img.entries, mtime, data);
}
