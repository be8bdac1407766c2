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

  test.each(["", "Fra", "-fra", "fra_equ", "a".repeat(64)])("rejects %p with a usage error naming the parameter", (v) => {
    const err = agentErrorOf(() => configFromCmdline(`${BOOT} METAL_PARTITION=${v}`));
    expect(err.code).toBe("usage");
    expect(err.message).toStartWith("METAL_PARTITION=");
  });
});
