import { describe, expect, test } from "bun:test";
import { escapeUntrusted } from "../../../src/platform/log/escape.ts";
import { createLogger, logEvent } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { runCli } from "../../../src/cli/program.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { captureContext } from "../../helpers/capture.ts";

const EVIL = "denied\n\x1b[31mFAKE LINE\x1b[0m\r\x00\x7f\x9b\u202e!";

describe("escapeUntrusted", () => {
  test("control characters become visible escapes on one line", () => {
    expect(escapeUntrusted(EVIL)).toBe("denied\\n\\x1b[31mFAKE LINE\\x1b[0m\\r\\x00\\x7f\\x9b\\u202e!");
  });

  test("ordinary text, tabs aside, is unchanged (non-ASCII letters included)", () => {
    for (const s of ["", "plain", "Größe 42 µs", "日本語", 'quote " and \\ backslash']) expect(escapeUntrusted(s)).toBe(s);
    expect(escapeUntrusted("a\tb")).toBe("a\\tb");
  });
});

function lines(format: "json" | "text"): { out: () => string; log: ReturnType<typeof createLogger> } {
  let out = "";
  return { out: () => out, log: createLogger({ level: "debug", format, write: (l) => void (out += l), secrets: new SecretSet() }) };
}

describe("the logger escapes every field from outside", () => {
  for (const format of ["json", "text"] as const) {
    test(`message, string fields, nested fields, arrays and keys are escaped (${format})`, () => {
      const { out, log } = lines(format);
      logEvent(log, "api.version", { serverMessage: EVIL, nested: { model: EVIL }, list: [EVIL], [EVIL]: 1, err: new AgentError("api_error", EVIL) }, EVIL, "warn");
      const text = out();
      expect(text.split("\n").length).toBe(2); // one line plus the final newline
      // No raw control character at all (JSON escaping would still leave DEL, C1 and U+202E raw).
      expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/.test(text)).toBe(false);
      expect(text).toContain(format === "json" ? "denied\\\\n\\\\x1b[31mFAKE LINE" : "denied\\\\n\\\\x1b[31mFAKE");
    });
  }

  test("the CLI's final error line carries a server message on one line, escaped", async () => {
    const c = captureContext();
    const code = await runCli(["x"], c.ctx, [
      (p) => {
        p.command("x").action(() => {
          throw new AgentError("auth", `apiserver EventService/Send: permission_denied: ${EVIL}`);
        });
      },
    ]);
    expect(code).toBe(21);
    expect(c.err()).toBe("metal-hammer: apiserver EventService/Send: permission_denied: denied\\n\\x1b[31mFAKE LINE\\x1b[0m\\r\\x00\\x7f\\x9b\\u202e!\n");
  });
});

describe("typed events", () => {
  test("a line without an event from the vocabulary does not compile", () => {
    const { out, log } = lines("json");
    // @ts-expect-error: no event
    log.info({ ifname: "eth0" }, "no event");
    // @ts-expect-error: an event that is not in src/platform/log/events.ts
    log.info({ event: "made.up" });
    // @ts-expect-error: a bare message
    log.info("bare message");
    // @ts-expect-error: logEvent checks the name too
    logEvent(log, "not.an.event", {});
    log.info({ event: "net.link.up", ifname: "eth0" });
    // At run time they still produce lines (the check is the compiler's); the last one is the typed one.
    expect(JSON.parse(out().trim().split("\n").at(-1) ?? "")).toMatchObject({ event: "net.link.up", ifname: "eth0", level: 30 });
  });
});

describe("tables and records from outside data (disk models, DMI strings)", () => {
  test("printTable and printRecord escape every cell; JSON stays valid JSON", async () => {
    const { printRecord, printTable } = await import("../../../src/cli/print.ts");
    const c = captureContext();
    printTable(c.ctx, ["KIND", "NAME", "VALUE"], [["disk", "sda", `model ${EVIL}`]]);
    printRecord(c.ctx, { vendor: EVIL }, false);
    printRecord(c.ctx, { vendor: EVIL }, true);
    const out = c.out();
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/.test(out)).toBe(false);
    const lines = out.trimEnd().split("\n");
    expect(lines.length).toBe(4); // header, one row, one record line, one JSON line
    expect(JSON.parse(lines[3] ?? "")).toEqual({ vendor: escapeUntrusted(EVIL) });
  });
});

describe("record keys", () => {
  test("a field named level, time or msg does not replace the record's own", () => {
    const { out, log } = lines("json");
    logEvent(log, "provision.event", { level: "x", time: "then", msg: "m2" }, "the message", "warn");
    expect(JSON.parse(out())).toMatchObject({ level: 40, event: "provision.event", msg: "the message", "field.level": "x", "field.time": "then", "field.msg": "m2" });
  });
});
