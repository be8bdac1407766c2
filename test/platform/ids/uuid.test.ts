import { describe, expect, test } from "bun:test";
import { isUuid, normaliseUuid } from "../../../src/platform/ids/uuid.ts";

describe("the UUID rule (protovalidate string.uuid)", () => {
  test("8-4-4-4-12 hex digits, either case, pass", () => {
    for (const u of [
      "00000000-6d68-6c00-0000-000000000001",
      "A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90",
      "a1B2c3D4-e5F6-0718-293a-4b5c6d7e8f90",
      "00000000-0000-0000-0000-000000000000",
    ]) {
      expect([u, isUuid(u)]).toEqual([u, true]);
    }
  });

  test("anything else is refused: braces, no dashes, wrong group lengths, spaces, non-hex", () => {
    for (const u of [
      "{00000000-6d68-6c00-0000-000000000001}",
      "000000006d686c000000000000000001",
      "0000000-06d68-6c00-0000-000000000001",
      "00000000-6d68-6c00-0000-00000000001",
      " 00000000-6d68-6c00-0000-000000000001",
      "00000000-6d68-6c00-0000-000000000001\n",
      "g0000000-6d68-6c00-0000-000000000001",
      "urn:uuid:00000000-6d68-6c00-0000-000000000001",
      "",
    ]) {
      expect([u, isUuid(u)]).toEqual([u, false]);
    }
  });

  test("a UUID is normalised to lower case; a non-UUID gives undefined", () => {
    expect(normaliseUuid("A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90")).toBe("a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90");
    expect(normaliseUuid("00000000-6d68-6c00-0000-000000000001")).toBe("00000000-6d68-6c00-0000-000000000001");
    expect(normaliseUuid("not-a-uuid")).toBeUndefined();
  });
});
