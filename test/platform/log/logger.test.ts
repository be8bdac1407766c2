/**
 * The Logger on pino: the record layout the console readers expect, pino's own
 * treatment of the merge object switched off, levels, and the bounded destination
 * (refused lines counted, one log.dropped line, error lines never refused).
 */
import { describe, expect, test } from "bun:test";
import { createLogger, logEvent, silentLogger, type LoggerOptions } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

function capture(opts: Partial<LoggerOptions> = {}): { lines: () => string[]; records: () => Record<string, unknown>[]; log: ReturnType<typeof createLogger> } {
  let out = "";
  const log = createLogger({ level: "trace", format: "json", write: (l) => void (out += l), secrets: new SecretSet(), ...opts });
  const lines = () => out.split("\n").filter(Boolean);
  return { lines, records: () => lines().map((l) => JSON.parse(l) as Record<string, unknown>), log };
}

describe("record layout", () => {
  test('a line is {"level":N,"time":ISO,"event":...,fields...,"msg":...} in that order', () => {
    const { lines, records, log } = capture();
    log.warn({ ifname: "eth0", event: "net.link.up", n: 2, nested: { a: [1, "x"] } }, "link up");
    expect(lines()[0]).toStartWith('{"level":40,"time":"');
    const [rec] = records();
    expect(Object.keys(rec ?? {})).toEqual(["level", "time", "event", "ifname", "n", "nested", "msg"]);
    expect(rec).toMatchObject({ level: 40, event: "net.link.up", ifname: "eth0", n: 2, nested: { a: [1, "x"] }, msg: "link up" });
    expect(new Date(String(rec?.time)).toISOString()).toBe(String(rec?.time));
  });

  test("no msg key when there is no message, no pid or hostname", () => {
    const { records, log } = capture();
    log.info({ event: "agent.start" });
    expect(records()).toEqual([{ level: 30, time: expect.any(String), event: "agent.start" }]);
  });

  test("an err field stays a field: its message does not become the line's message", () => {
    const { records, log } = capture();
    const err = new Error("server said\nFAKE");
    log.error({ event: "agent.fatal", err });
    const [rec] = records();
    expect(rec?.msg).toBeUndefined();
    expect(rec?.err).toMatchObject({ type: "Error", message: "server said\\nFAKE" });
  });

  test("fields named method, headers and socket are logged as given, not as an HTTP request", () => {
    const { records, log } = capture();
    log.info({ event: "api.version", method: "POST", headers: { accept: "application/json" }, socket: "fd 7" });
    expect(records()[0]).toMatchObject({ method: "POST", headers: { accept: "application/json" }, socket: "fd 7" });
  });

  test("a message with printf placeholders is written literally", () => {
    const { records, log } = capture();
    log.info({ event: "api.version" }, "100%s done %d %o %j");
    expect(records()[0]?.msg).toBe("100%s done %d %o %j");
  });

  test("the text format renders the same record on one line", () => {
    const { lines, log } = capture({ format: "text" });
    log.info({ event: "net.link.up", ifname: "eth0", flags: ["UP"] }, "link up");
    expect(lines()[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  net\.link\.up link up ifname=eth0 flags=\["UP"\]$/);
  });

  test("a line reaches the destination before the call returns (no worker, no transport)", () => {
    const { lines, log } = capture();
    for (let i = 0; i < 3; i++) {
      log.debug({ event: "api.version", i });
      expect(lines().length).toBe(i + 1);
    }
  });
});

describe("levels", () => {
  test("lines below the level are not written; isLevelEnabled agrees", () => {
    const { records, log } = capture({ level: "warn" });
    for (const level of ["trace", "debug", "info", "warn", "error", "fatal"] as const) logEvent(log, "agent.start", { level_: level }, level, level);
    expect(records().map((r) => r.level)).toEqual([40, 50, 60]);
    expect([log.isLevelEnabled("info"), log.isLevelEnabled("warn")]).toEqual([false, true]);
    expect(log.level).toBe("warn");
  });

  test("silent writes nothing, not even fatal", () => {
    const { lines, log } = capture({ level: "silent" });
    log.fatal({ event: "agent.fatal" }, "x");
    expect(lines()).toEqual([]);
    expect(log.isLevelEnabled("fatal")).toBe(false);
    silentLogger().error({ event: "agent.fatal" }, "nowhere");
  });
});

describe("a destination that refuses lines", () => {
  function refusing() {
    let accept = (_line: string) => false;
    const accepted: string[] = [];
    const always: string[] = [];
    const log = createLogger({
      level: "debug",
      format: "json",
      write: (l) => (accept(l) ? void accepted.push(l) : false),
      writeAlways: (l) => void always.push(l),
      secrets: new SecretSet(),
    });
    const parse = (ls: string[]) => ls.map((l) => JSON.parse(l) as Record<string, unknown>);
    return {
      log,
      setOpen: (v: boolean) => (accept = () => v),
      setAccept: (f: (line: string) => boolean) => (accept = f),
      accepted: () => parse(accepted),
      always: () => parse(always),
    };
  }

  test("refused lines are counted and reported once, in one log.dropped line before the next accepted line", () => {
    const d = refusing();
    for (let i = 0; i < 5; i++) d.log.info({ event: "api.version", i });
    expect(d.log.dropped).toBe(5);
    d.setOpen(true);
    d.log.info({ event: "api.version", i: 5 });
    d.log.info({ event: "api.version", i: 6 });
    expect(d.accepted().map((r) => r.event)).toEqual(["log.dropped", "api.version", "api.version"]);
    expect(d.accepted()[0]).toMatchObject({ level: 40, dropped: 5, total: 5, msg: "5 log line(s) dropped: the log destination did not keep up" });
    expect(d.log.dropped).toBe(5);
  });

  test("error and fatal lines are never refused and carry the count of what was lost before them", () => {
    const d = refusing();
    d.log.warn({ event: "api.version" });
    d.log.debug({ event: "api.version" });
    d.log.error({ event: "agent.fatal" }, "why it stopped");
    d.log.fatal({ event: "agent.fatal" }, "last words");
    expect(d.always().map((r) => [r.event, r.dropped ?? r.msg])).toEqual([
      ["log.dropped", 2],
      ["agent.fatal", "why it stopped"],
      ["agent.fatal", "last words"],
    ]);
    expect(d.log.dropped).toBe(2);
    // Reported already: the next accepted line is not preceded by a second notice.
    d.setOpen(true);
    d.log.info({ event: "api.version" }, "after");
    expect(d.accepted().map((r) => r.event)).toEqual(["api.version"]);
  });

  test("when the notice itself is refused, the line after it is dropped too and the next notice counts it", () => {
    const d = refusing();
    d.log.info({ event: "api.version" });
    d.log.info({ event: "api.version" });
    expect(d.log.dropped).toBe(2);
    d.setAccept((line) => !line.includes('"log.dropped"'));
    d.log.info({ event: "api.version" }, "behind a refused notice");
    expect(d.accepted()).toEqual([]);
    expect(d.log.dropped).toBe(3);
    d.setOpen(true);
    d.log.info({ event: "api.version" }, "through");
    expect(d.accepted().map((r) => [r.event, r.dropped ?? r.msg])).toEqual([
      ["log.dropped", 3],
      ["api.version", "through"],
    ]);
  });
});
