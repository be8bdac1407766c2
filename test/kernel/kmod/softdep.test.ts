import { describe, expect, test } from "bun:test";
import { parseModulesAlias } from "../../../src/kernel/kmod/alias.ts";
import { ModuleError } from "../../../src/kernel/kmod/names.ts";
import { parseModulesSoftdep, renderModulesSoftdep, resolveSoftdeps } from "../../../src/kernel/kmod/softdep.ts";

// Lines from Debian 6.1.0-57-amd64's modules.softdep and modules.alias.
const SOFT = parseModulesSoftdep(
  "# Soft dependencies\nsoftdep ext4 pre: crypto-crc32c\nsoftdep libcrc32c pre: crc32c\nsoftdep crc_t10dif pre: crct10dif\nsoftdep virtio_net pre: x post: failover\n",
);
const ALIASES = parseModulesAlias(
  "alias crypto-crc32c crc32c_intel\nalias crypto-crc32c crc32c_generic\nalias crc32c crc32c_intel\nalias crc32c crc32c_generic\nalias crct10dif crct10dif_pclmul\n",
);

describe("modules.softdep", () => {
  test("pre: names only; post: is dropped", () => {
    expect(SOFT.get("ext4")).toEqual(["crypto-crc32c"]);
    expect(SOFT.get("virtio_net")).toEqual(["x"]);
  });

  test("aliases resolve to every module they name that exists; unknown names are dropped", () => {
    const known = new Set(["ext4", "libcrc32c", "crc32c_intel", "crc32c_generic", "crc_t10dif", "virtio_net"]);
    const r = resolveSoftdeps(SOFT, ALIASES, known);
    expect(r).toEqual(
      new Map([
        ["ext4", ["crc32c_intel", "crc32c_generic"]],
        ["libcrc32c", ["crc32c_intel", "crc32c_generic"]],
      ]),
    );
    expect(renderModulesSoftdep(r, new Set(["ext4"]))).toBe("softdep ext4 pre: crc32c_intel crc32c_generic\n");
    expect(parseModulesSoftdep(renderModulesSoftdep(r, new Set(["ext4"])))).toEqual(new Map([["ext4", ["crc32c_intel", "crc32c_generic"]]]));
  });

  test("a malformed line names the file and line", () => {
    expect(() => parseModulesSoftdep("softdep\n", "s")).toThrow(new ModuleError('s:1: expected "softdep <module> pre: <names> post: <names>", got "softdep"'));
  });
});
