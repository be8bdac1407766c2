import { describe, expect, test } from "bun:test";
import { LoggingSchema, lokiTarget } from "../../../src/ops/remote-log/remote-log-config.ts";
import { lokiPushBody, machineLabels } from "../../../src/ops/remote-log/loki-payload.ts";
import { DropOldestQueue } from "../../../src/ops/remote-log/ring.ts";

describe("the bounded queue", () => {
  test("drops the oldest entries when full and counts them", () => {
    const q = new DropOldestQueue<number>(3);
    for (let i = 1; i <= 5; i++) q.push(i);
    expect(q.dropped).toBe(2);
    expect(q.take(10)).toEqual([3, 4, 5]);
  });

  test("a batch put back goes in front; over capacity its oldest entries go first", () => {
    const q = new DropOldestQueue<number>(4);
    q.push(1);
    q.push(2);
    const batch = q.take(2);
    q.push(3);
    q.push(4);
    q.push(5);
    q.putBack(batch);
    expect(q.dropped).toBe(1);
    expect(q.take(10)).toEqual([2, 3, 4, 5]);
  });
});

describe("the Loki push body", () => {
  test("one stream with the machine's labels and [ns, line] pairs, oldest first", () => {
    const body = lokiPushBody(machineLabels("4c4c4544-0042"), [
      { ns: 1_764_550_800_000_000_001n, line: "a" },
      { ns: 1_764_550_800_000_000_002n, line: '{"event":"x"}' },
    ]);
    expect(JSON.parse(body)).toEqual({
      streams: [
        {
          stream: { component: "metal-hammer", machineID: "4c4c4544-0042" },
          values: [
            ["1764550800000000001", "a"],
            ["1764550800000000002", '{"event":"x"}'],
          ],
        },
      ],
    });
  });
});

describe("the logging section of the config (pixie's api.go shape)", () => {
  test("snake_case as pixie serves it", () => {
    const l = LoggingSchema.parse({ endpoint: "https://loki.example/loki/api/v1/push", basic_auth: { user: "u", password: "p4ssw0rd-x" }, log_type: "loki" });
    expect(lokiTarget(l)).toEqual({ kind: "ship", target: { endpoint: new URL("https://loki.example/loki/api/v1/push"), basicAuth: { user: "u", password: "p4ssw0rd-x" } } });
  });

  test("no endpoint, or a type other than loki: off, with the reason", () => {
    expect(lokiTarget(LoggingSchema.parse({ level: "info" }))).toEqual({ kind: "off", reason: "no logging.endpoint in the config" });
    expect(lokiTarget(undefined)).toEqual({ kind: "off", reason: "no logging.endpoint in the config" });
    expect(lokiTarget(LoggingSchema.parse({ endpoint: "https://x.example/", log_type: "elastic" }))).toEqual({
      kind: "off",
      reason: 'unsupported logging.log_type "elastic" (only "loki")',
    });
  });

  test("a bad endpoint or certificate names the field", () => {
    const r = LoggingSchema.safeParse({ endpoint: "ftp://x" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["endpoint"]);
    const c = LoggingSchema.safeParse({ endpoint: "https://x.example/", certificate_auth: { cert: "nope", key: "nope" } });
    expect(c.error?.issues.map((i) => i.path.join("."))).toEqual(["certificate_auth.cert", "certificate_auth.key"]);
  });
});
