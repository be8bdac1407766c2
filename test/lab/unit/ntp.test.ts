import { describe, expect, test } from "bun:test";
import { boundUdpPorts, chronyArgv, chronyConf, procAddr6 } from "../../../lab/standins/ntp.ts";
import { chunkLines, clockSummary, records } from "../../../lab/base/serial-console.ts";

describe("the lab's NTP server (chronyd)", () => {
  test("its config serves the local clock on one address, with no command socket and its pid file in the lab's dir", () => {
    const c = chronyConf("fd00:b007::123", "/tmp/lab-x");
    const lines = c.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    expect(lines).toEqual(["local stratum 8", "allow all", "bindaddress fd00:b007::123", "port 123", "cmdport 0", "bindcmdaddress /", "pidfile /tmp/lab-x/chronyd.pid"]);
    // -x: never adjust the (host's) clock it serves.
    expect(chronyArgv("/tmp/lab-x/chrony.conf")).toEqual(["chronyd", "-d", "-x", "-u", "root", "-f", "/tmp/lab-x/chrony.conf"]);
  });

  test("addresses are matched in /proc/net/udp6's word order", () => {
    // Read from a real table: chronyd bound to [fd00:b007::123]:123.
    expect(procAddr6("fd00:b007::123")).toBe("07B000FD000000000000000023010000");
    expect(procAddr6("::1")).toBe("00000000000000000000000001000000");
    expect(() => procAddr6("fd00:1:2:3:4:5:6:7:8")).toThrow("fd00:1:2:3:4:5:6:7:8: expected an IPv6 address of 8 groups");
    const table = [
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops",
      " 8561: 07B000FD000000000000000023010000:007B 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 50511 2 000000003575d7e0 0",
      " 8562: 00000000000000000000000001000000:0035 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 50512 2 000000003575d7e0 0",
    ].join("\n");
    expect([...boundUdpPorts(table, "fd00:b007::123")]).toEqual([123]);
    expect([...boundUdpPorts(table, "::1")]).toEqual([53]);
    expect([...boundUdpPorts(table, "fd00:b007::124")]).toEqual([]);
  });
});

describe("the lab's clock summary", () => {
  const rec = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ level: 30, event, ...extra });
  test("the skipped stage and the re-sync from metal-boot's ntp_servers, each with its console time", () => {
    const chunks = [
      { t: 1000, text: `${rec("clock.skip", { msg: "no NTP server (METAL_NTP_SERVERS not set): the clock is not checked" })}\n` },
      { t: 1500, text: `${rec("clock.query", { servers: ["[fd00:b007::123]:123"] })}\nkernel noise\n` },
      { t: 1512, text: `${rec("clock.sync", { msg: "clock is right: 1 ms behind" })}\n` },
      { t: 1600, text: `${rec("clock.query", { servers: ["[fd00:123::1]:123", "ntp.example:123"] })}\n` },
      { t: 5500, text: `${rec("clock.unsynced", { msg: "no usable time" })}\n${rec("clock.query", { servers: ["x:123"] })}` },
    ];
    expect(clockSummary(records(chunkLines(chunks, 1000)))).toEqual([
      "clock: not asked: no NTP server (METAL_NTP_SERVERS not set): the clock is not checked",
      "clock: synced in 12 ms, asked [fd00:b007::123]:123: clock is right: 1 ms behind",
      "clock: unsynced in 3900 ms, asked [fd00:123::1]:123, ntp.example:123: no usable time",
      "clock: asked x:123: no answer before the console ended",
    ]);
  });
});
