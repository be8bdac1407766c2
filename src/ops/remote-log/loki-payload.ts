/**
 * The Loki push API body (POST /loki/api/v1/push, Content-Type application/json):
 * `{"streams":[{"stream":{<labels>},"values":[["<unix ns>","<line>"], ...]}]}`, one
 * stream per label set, values oldest first. Labels as upstream sets them:
 * component=metal-hammer and machineID=<uuid> (metal-stack/metal-hammer@ec148e3 cmd/remote-logging.go:63-64).
 * Pure.
 */
export interface LogEntry {
  /** Unix time in ns (decimal string, as Loki wants it). */
  readonly ns: bigint;
  readonly line: string;
}

export type Labels = Readonly<Record<string, string>>;

export function machineLabels(uuid: string): Labels {
  return { component: "metal-hammer", machineID: uuid };
}

export function lokiPushBody(labels: Labels, entries: readonly LogEntry[]): string {
  return JSON.stringify({ streams: [{ stream: labels, values: entries.map((e) => [e.ns.toString(), e.line]) }] });
}
