import pkg from "../../package.json" with { type: "json" };

// Set by `bun build --define` in the Makefile; absent when run from source.
declare const METAL_HAMMER_COMMIT: string | undefined;
declare const METAL_HAMMER_TARGET: string | undefined;

export interface VersionInfo {
  version: string;
  commit: string;
  bun: string;
  target: string;
}

export function versionInfo(): VersionInfo {
  return {
    version: pkg.version,
    commit: typeof METAL_HAMMER_COMMIT === "string" ? METAL_HAMMER_COMMIT : "unknown",
    bun: Bun.version,
    target: typeof METAL_HAMMER_TARGET === "string" ? METAL_HAMMER_TARGET : "source",
  };
}
