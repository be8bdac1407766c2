import { describe, expect, test } from "bun:test";
import { agentRecord, classifyEnd, cleanLine, eachLine, labExitCode, listeningPorts, records, splitLines } from "../../../lab/base/serial-console.ts";

const lines = (...t: string[]) => t.map((text, i) => ({ ms: i, text }));

describe("lab console", () => {
  test("lines are split across chunks and cleaned of CR and escape sequences", () => {
    const a = splitLines("", "\x1bc\x1b[?7l\x1b[2JSeaBIOS\r\nhal");
    expect(a).toEqual({ lines: ["SeaBIOS"], rest: "hal" });
    expect(splitLines(a.rest, "lo\n")).toEqual({ lines: ["hallo"], rest: "" });
    expect(cleanLine("a\x00b\x07c\td")).toBe("abc\td");
  });

  test("a stream is read line by line across chunks, the last line even without its newline; each chunk seen raw first", async () => {
    const enc = new TextEncoder();
    const chunks = ["SeaBIOS\r\nhal", "lo\nend\x1b[0m"].map((c) => enc.encode(c));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const x of chunks) c.enqueue(x);
        c.close();
      },
    });
    const got: string[] = [];
    const raw: Uint8Array[] = [];
    await eachLine(
      stream,
      (l) => got.push(l),
      (chunk) => raw.push(chunk),
    );
    expect(got).toEqual(["SeaBIOS", "hallo", "end"]);
    expect(raw).toEqual(chunks);
  });

  test("an agent record is found even when the kernel printed before it on the line", () => {
    expect(agentRecord('[ 1.0] x {"level":30,"event":"agent.start","pid":1}')).toEqual({ level: 30, event: "agent.start", pid: 1 });
    expect(agentRecord('{"level":30,"event":')).toBeUndefined();
    expect(agentRecord("[    9.3] reboot: Power down")).toBeUndefined();
  });

  test("a record the kernel cut in two (or three) is joined without the kernel's message; others are left alone", () => {
    const at = (ms: number, text: string) => ({ ms, text });
    const got = records([
      at(1, '{"level":30,"event":"agent.start","pid":1}'),
      at(2, '{"level":30,"event":"agent.con[    7.912345] random: crng init done'),
      at(3, 'fig","config":{"partition":"lab-a"}}'),
      at(4, '{"level":30,"ev[    8.1] a[    8.2] b'),
      at(5, 'ent":"net.up",[    8.3] c'),
      at(6, '"nics":2}'),
      at(7, '{"level":30,"event":"cut by a power loss'),
      at(8, '{"level":30,"event":"agent.done"}'),
      at(9, "[   9.0] reboot: Power down"),
    ]);
    expect(got).toEqual([
      { level: 30, event: "agent.start", pid: 1, ms: 1 },
      { level: 30, event: "agent.config", config: { partition: "lab-a" }, ms: 2 },
      { level: 30, event: "net.up", nics: 2, ms: 4 },
      { level: 30, event: "agent.done", ms: 8 },
    ]);
  });

  test("the end is read from the kernel's last words; the bound wins over everything", () => {
    expect(classifyEnd(lines("x", "[    9.349917] reboot: Power down"), false)).toBe("poweroff");
    expect(classifyEnd(lines("[ 3.1] reboot: Restarting system"), false)).toBe("reboot");
    expect(classifyEnd(lines("[ 3.1] Kernel panic - not syncing: Attempted to kill init!", "[ 3.2] ---[ end Kernel panic"), false)).toBe("panic");
    expect(classifyEnd(lines("[ 3.1] reboot: Power down"), true)).toBe("timeout");
    expect(classifyEnd(lines("qemu: could not open tap"), false)).toBe("crashed");
  });

  test("exit code: 0 when the run ended as expected, one code per other outcome", () => {
    expect(labExitCode("reboot", "reboot")).toBe(0);
    expect(labExitCode("reboot", "poweroff")).toBe(11);
    expect(labExitCode("timeout", "poweroff")).toBe(14);
  });

  test("listening ports come from /proc/<pid>/net/tcp6 LISTEN rows only", () => {
    const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 6D686CFD00000000FFFF000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 6D686CFD00000000FFFF000001000000:0050 6D686CFD00000000FFFF000002000000:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
`;
    expect([...listeningPorts(tcp6)]).toEqual([8080]);
  });
});
