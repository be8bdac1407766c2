/**
 * The os-installer the initramfs carries (src/install/carried-installer.ts): what the
 * build checks of the given binary and the facts it records beside it. Pure.
 *
 * os-installer runs in a chroot of the installed image, so it must not need the
 * initramfs's libraries: a static ELF program (metal-stack builds it with
 * CGO_ENABLED=0), or a `#!` script run by the image's own interpreter (the lab's test
 * installer). A dynamically linked ELF is refused by name: in the chroot it would load
 * the image's libc, or none.
 */
import { parseCarriedInstallerInfo, type CarriedInstallerInfo } from "../../src/install/carried-installer.ts";
import { readElfDeps } from "./elf.ts";

export class CarriedInstallerBuildError extends Error {
  override readonly name = "CarriedInstallerBuildError";
}

const isElf = (b: Uint8Array) => b.length >= 4 && b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46;

/** The facts of `bytes` (the file at `path`) as the initramfs records them; throws naming the file and what was expected. */
export function carriedInstallerInfo(bytes: Uint8Array, path: string, name: string, version: string, sha256: string): CarriedInstallerInfo {
  let kind: CarriedInstallerInfo["kind"];
  if (isElf(bytes)) {
    const deps = readElfDeps(bytes);
    if (deps.interpreter !== undefined || deps.needed.length > 0)
      throw new CarriedInstallerBuildError(
        `OS_INSTALLER=${path} is dynamically linked (interpreter ${deps.interpreter ?? "none"}, needs ${deps.needed.join(" ") || "nothing"}): expected a static binary (CGO_ENABLED=0), it runs in the image's chroot`,
      );
    kind = "elf-static";
  } else if (bytes[0] === 0x23 && bytes[1] === 0x21) kind = "script";
  else throw new CarriedInstallerBuildError(`OS_INSTALLER=${path} is neither an ELF program nor a #! script`);
  // The agent's own reader checks what the build writes: one set of rules.
  try {
    return parseCarriedInstallerInfo(JSON.stringify({ name, version, sha256, bytes: bytes.length, kind }), `OS_INSTALLER=${path} (OS_INSTALLER_VERSION=${version})`);
  } catch (e) {
    throw new CarriedInstallerBuildError((e as Error).message);
  }
}
