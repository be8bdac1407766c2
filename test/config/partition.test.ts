import { describe, expect, test } from "bun:test";
import { configFromCmdline } from "../../src/config/config.ts";
import { agentErrorOf } from "../helpers/agent-error.ts";

const BOOT = "METAL_BOOT_URL=https://[2001:db8::10]/";

describe("METAL_PARTITION", () => {
  test("the partition metal-boot put on the cmdline is in the config", () => {
    expect(configFromCmdline(`${BOOT} METAL_PARTITION=fra-equ01`).partition).toBe("fra-equ01");
  });

  test("absent means undefined, not a default partition", () => {
    expect(configFromCmdline(BOOT).partition).toBeUndefined();
  });

  test.each(["", "a", "Fra", "-fra", "fra_equ", "a".repeat(64)])("rejects %p with a usage error naming the parameter", (v) => {
    const err = agentErrorOf(() => configFromCmdline(`${BOOT} METAL_PARTITION=${v}`));
    expect(err.code).toBe("usage");
    expect(err.message).toStartWith("METAL_PARTITION=");
  });
});

describe("METAL_UUID", () => {
  test("a UUID in either case is the machine's uuid", () => {
    expect(configFromCmdline(`${BOOT} METAL_UUID=4C4C4544-0042-3510-8052-B4C04F4B4E32`).uuid).toBe("4c4c4544-0042-3510-8052-b4c04f4b4e32");
  });

  // The apiserver takes only a UUID (boot.proto uuid: string.uuid): anything else is refused here, before the network.
  test.each(["aa-bb-cc-dd", "4c4c4544004235108052b4c04f4b4e32", "4c4c4544-0042-3510-8052-b4c04f4b4e3", "leaf01"])("rejects %p with a usage error naming the parameter", (v) => {
    const err = agentErrorOf(() => configFromCmdline(`${BOOT} METAL_UUID=${v}`));
    expect(err.code).toBe("usage");
    expect(err.message).toStartWith("METAL_UUID=");
    expect(err.message).toContain("8-4-4-4-12 hex digits");
  });
});
