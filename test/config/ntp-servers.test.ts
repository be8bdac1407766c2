import { describe, expect, test } from "bun:test";
import { formatNtpServer, parseNtpServer, parseNtpServerList } from "../../src/config/ntp-servers.ts";

describe("NTP server lists", () => {
  test("IPv6 literals bare or in brackets with a port, IPv4 literals and host names", () => {
    expect(parseNtpServerList("2001:db8::123, [fd00::1]:1123,192.0.2.1,ntp.metal.example:124")).toEqual([
      { host: "2001:db8::123", port: 123 },
      { host: "fd00::1", port: 1123 },
      { host: "192.0.2.1", port: 123 },
      { host: "ntp.metal.example", port: 124 },
    ]);
  });

  test("duplicates are asked once", () => {
    expect(parseNtpServerList("fd00::1,[fd00::1]:123")).toEqual([{ host: "fd00::1", port: 123 }]);
  });

  test("bad entries and empty lists are refused", () => {
    for (const bad of ["", ",", "fd00::1,not a host", "[fd00::1]:0", "[fd00::1]:70000", "[nope]:123", "ntp.example:x"]) expect(parseNtpServerList(bad)).toBeUndefined();
  });

  test("written back with brackets for IPv6", () => {
    expect(formatNtpServer(parseNtpServer("fd00::1")!)).toBe("[fd00::1]:123");
    expect(formatNtpServer(parseNtpServer("ntp.example")!)).toBe("ntp.example:123");
  });
});
