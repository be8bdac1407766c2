import { describe, expect, test } from "bun:test";
import { passwordFieldHex, rawCompletionCode, setUserPasswordLine } from "../../../src/machine/bmc/set-user-password.ts";

describe("setUserPasswordLine", () => {
  test("set and test for user 4: NetFn 0x06, command 0x47, the user id, the operation, 16 bytes zero-padded (exact vectors)", () => {
    const field = "0x41 0x62 0x63 0x23 0x64 0x65 0x66 0x67 0x68 0x31 0x32 0x00 0x00 0x00 0x00 0x00";
    expect(setUserPasswordLine(4, "set", "Abc#defgh12")).toBe(`raw 0x06 0x47 0x04 0x02 ${field}`);
    expect(setUserPasswordLine(4, "test", "Abc#defgh12")).toBe(`raw 0x06 0x47 0x04 0x03 ${field}`);
    expect(setUserPasswordLine(63, "set", "sixteen-chars-ok")).toBe("raw 0x06 0x47 0x3f 0x02 0x73 0x69 0x78 0x74 0x65 0x65 0x6e 0x2d 0x63 0x68 0x61 0x72 0x73 0x2d 0x6f 0x6b");
  });

  test("every printable ASCII password becomes a line of hex bytes only, which ipmitool's exec parser passes unchanged", () => {
    const all = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    for (let i = 0; i < all.length; i += 16) {
      const line = setUserPasswordLine(10, "set", all.slice(i, i + 16));
      expect(line).toMatch(/^raw( 0x[0-9a-f]{2}){20}$/);
    }
  });

  test("refuses what does not fit: 17 bytes, user ids 0 and 64", () => {
    expect(() => passwordFieldHex("a".repeat(17))).toThrow("a password of 17 bytes does not fit the 16-byte field");
    expect(() => setUserPasswordLine(0, "set", "x")).toThrow("BMC user id 0: expected 1..63");
    expect(() => setUserPasswordLine(64, "set", "x")).toThrow("BMC user id 64: expected 1..63");
  });
});

describe("rawCompletionCode", () => {
  test("reads the code from ipmitool raw's failure line (as ipmitool 1.8.19 prints it against ipmi_sim)", () => {
    expect(rawCompletionCode("Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47 rsp=0xcc): Invalid data field in request")).toBe(0xcc);
    expect(rawCompletionCode("Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47 rsp=0x80): Unknown (0x80)\n")).toBe(0x80);
    expect(rawCompletionCode("Unable to send RAW command (channel=0x0 netfn=0x6 lun=0x0 cmd=0x47)")).toBeUndefined();
    expect(rawCompletionCode("Could not open device at /dev/ipmi0")).toBeUndefined();
  });
});
