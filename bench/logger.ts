/**
 * The logger on pino (src/platform/log/logger.ts) against the hand-written formatter it
 * replaced (commit 04b5d59, copied below and marked ALTERNATIVE), same run, JSON and
 * text formats: lines per second and resident memory. Each (variant, format) runs in
 * its own child process so its RSS is its own; a child that loads neither logger
 * gives the runtime's baseline. The children alternate, R rounds; the table shows
 * medians. The destination counts bytes and accepts every line (the cost measured is
 * the logger's: redaction, escaping, formatting, scrubbing; not the descriptor's).
 * Run: bun bench/logger.ts [lines per child, default 200000] [rounds, default 3]
 */
import type { EventName } from "../src/platform/log/events.ts";
import { escapeDeep, escapeUntrusted } from "../src/platform/log/escape.ts";
import { SecretSet, redactFields } from "../src/platform/log/redact.ts";
import { AgentError } from "../src/platform/errors.ts";
import { formatText, LEVELS, type LogLevel } from "../src/platform/log/text-format.ts";

type Variant = "pino" | "hand" | "none";
type Format = "json" | "text";

// ---------------------------------------------------------------------------
// ALTERNATIVE: the hand-written logger of commit 04b5d59 (logger.ts of that commit),
// formatRecord + createLogger, unchanged but for names. Not used by the agent.
// formatText is src/platform/log/text-format.ts's (that file does not load pino, so this
// variant's RSS does not include it).
// ---------------------------------------------------------------------------
interface HandFields {
  readonly event: EventName;
  readonly [field: string]: unknown;
}

function handFormatRecord(level: LogLevel, fields: HandFields, msg: string | undefined, format: Format, secrets: SecretSet, time = new Date()): string {
  const { event, ...rest } = fields;
  const safe = escapeDeep(redactFields(rest)) as Record<string, unknown>;
  const record: Record<string, unknown> = { level: LEVELS[level], time: time.toISOString(), event };
  for (const [k, v] of Object.entries(safe)) record[k in record || k === "msg" ? `field.${k}` : k] = v;
  if (msg !== undefined) record.msg = escapeUntrusted(msg);
  const line = format === "json" ? JSON.stringify(record) + "\n" : formatText(record);
  return secrets.scrub(line);
}

function handCreateLogger(opts: { level: LogLevel; format: Format; write: (line: string) => unknown; secrets: SecretSet }) {
  const threshold = LEVELS[opts.level];
  let dropped = 0;
  let reported = 0;
  const emit = (level: LogLevel, fields: HandFields, msg?: string): void => {
    if (LEVELS[level] < threshold) return;
    const put = (line: string) => opts.write(line) !== false;
    if (dropped > reported) {
      const lost = dropped - reported;
      if (!put(handFormatRecord("warn", { event: "log.dropped", dropped: lost, total: dropped }, `${lost} log line(s) dropped`, opts.format, opts.secrets))) {
        dropped++;
        return;
      }
      reported = dropped;
    }
    if (!put(handFormatRecord(level, fields, msg, opts.format, opts.secrets))) dropped++;
  };
  return {
    info: (fields: HandFields, msg?: string) => emit("info", fields, msg),
    warn: (fields: HandFields, msg?: string) => emit("warn", fields, msg),
    debug: (fields: HandFields, msg?: string) => emit("debug", fields, msg),
  };
}
// --------------------------------------------------------------------------- end ALTERNATIVE

const err = new AgentError("api_error", "apiserver BootService/Register: unavailable: upstream connect error", { status: 503 });

/** The lines the agent writes most: a retry line, a debug line with nested fields, an error with an AgentError. */
function workload(log: { info: (f: HandFields, m?: string) => void; warn: (f: HandFields, m?: string) => void; debug: (f: HandFields, m?: string) => void }, n: number): void {
  for (let i = 0; i < n; i++) {
    switch (i % 3) {
      case 0:
        log.warn(
          {
            event: "http.retry",
            what: "metal-boot config",
            url: "https://[2001:db8::10]/config/4c4c4544-0042-4b10-8031-b7c04f4e3432",
            attempt: i,
            attempts: 8,
            delayMs: 441,
            reason: "ECONNREFUSED",
          },
          `metal-boot config: attempt ${i}/8 failed (ECONNREFUSED); next attempt in 441 ms`,
        );
        break;
      case 1:
        log.debug({
          event: "net.dad.done",
          ifname: "eth0",
          address: "2001:db8:0:1:5054:ff:fe12:3456",
          flags: ["permanent", "managetempaddr"],
          lifetimes: { valid: 2592000, preferred: 604800 },
        });
        break;
      default:
        log.info({ event: "provision.event", err, machine: "4c4c4544-0042-4b10-8031-b7c04f4e3432" }, "event sent");
    }
  }
}

async function child(variant: Variant, format: Format, n: number): Promise<void> {
  let bytes = 0;
  const write = (line: string) => {
    bytes += line.length;
    return true;
  };
  const secrets = new SecretSet();
  secrets.add("eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.not-in-any-line");
  let log: Parameters<typeof workload>[0] | undefined;
  if (variant === "pino") {
    const { createLogger } = await import("../src/platform/log/logger.ts");
    log = createLogger({ level: "debug", format, write, secrets });
  } else if (variant === "hand") {
    log = handCreateLogger({ level: "debug", format, write, secrets });
  }
  Bun.gc(true);
  const rssLoaded = process.memoryUsage().rss;
  let rate = 0;
  if (log) {
    workload(log, Math.min(20_000, n)); // warm-up (JIT)
    bytes = 0;
    const t = performance.now();
    workload(log, n);
    rate = n / ((performance.now() - t) / 1000);
  }
  Bun.gc(true);
  const rss = process.memoryUsage().rss;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ variant, format, rate, bytesPerLine: n ? bytes / n : 0, rssLoaded, rss, maxRss }));
}

type Result = { variant: Variant; format: Format; rate: number; bytesPerLine: number; rssLoaded: number; rss: number; maxRss: number };

/** Both variants must write the same lines (times aside), or the comparison means nothing. */
async function sameLines(): Promise<void> {
  const { createLogger } = await import("../src/platform/log/logger.ts");
  for (const format of ["json", "text"] as const) {
    const out = { pino: "", hand: "" };
    const secrets = new SecretSet();
    workload(createLogger({ level: "debug", format, write: (l) => void (out.pino += l), secrets }), 6);
    workload(handCreateLogger({ level: "debug", format, write: (l) => void (out.hand += l), secrets }), 6);
    const mask = (t: string) => t.replace(/"time":"[^"]*"/g, '"time":"T"').replace(/^\d\d:\d\d:\d\d\.\d{3} /gm, "T ");
    if (mask(out.pino) !== mask(out.hand)) throw new Error(`the variants write different ${format} lines:\n${out.pino}\n${out.hand}`);
  }
}

async function parent(n: number, rounds: number): Promise<void> {
  await sameLines();
  const cases: [Variant, Format][] = [
    ["none", "json"],
    ["hand", "json"],
    ["pino", "json"],
    ["hand", "text"],
    ["pino", "text"],
  ];
  const results = new Map<string, Result[]>();
  for (let r = 0; r < rounds; r++) {
    for (const [variant, format] of r % 2 ? [...cases].reverse() : cases) {
      const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", variant, format, String(variant === "none" ? 0 : n)], { stderr: "inherit" });
      if (p.exitCode !== 0) throw new Error(`child ${variant} ${format} exited ${p.exitCode}`);
      const res = JSON.parse(p.stdout.toString()) as Result;
      const key = `${variant} ${format}`;
      results.set(key, [...(results.get(key) ?? []), res]);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const baseline = results.get("none json") ?? [];
  const base = median(baseline.map((x) => x.rss));
  const baseLoaded = median(baseline.map((x) => x.rssLoaded));
  console.log(`bun ${Bun.version}, ${n} lines per child, ${rounds} rounds, medians`);
  console.log(
    ["variant".padEnd(18), "format", "lines/s".padStart(9), "B/line", "loaded: RSS MiB (over baseline)", "after the lines: RSS MiB (over baseline)", "max RSS MiB"].join("  "),
  );
  for (const [key, rs] of results) {
    const [variant, format] = key.split(" ") as [Variant, Format];
    const name = variant === "none" ? "(no logger)" : variant === "pino" ? "pino (agent)" : "hand (04b5d59)";
    const rate = variant === "none" ? "-" : Math.round(median(rs.map((x) => x.rate))).toString();
    const rss = median(rs.map((x) => x.rss));
    const loaded = median(rs.map((x) => x.rssLoaded));
    const over = (v: number, b: number) => (variant === "none" ? mb(v) : `${mb(v)} (${v >= b ? "+" : "-"}${mb(Math.abs(v - b))})`);
    console.log(
      [
        name.padEnd(18),
        format.padEnd(6),
        rate.padStart(9),
        median(rs.map((x) => x.bytesPerLine))
          .toFixed(0)
          .padStart(6),
        over(loaded, baseLoaded).padStart(31),
        over(rss, base).padStart(40),
        mb(median(rs.map((x) => x.maxRss))).padStart(11),
      ].join("  "),
    );
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") await child(argv[1] as Variant, argv[2] as Format, Number(argv[3]));
else await parent(Number(argv[0] ?? 200_000), Number(argv[1] ?? 3));
