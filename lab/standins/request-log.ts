/** Every request a stand-in answers, as a JSON line (method, path, source address), in memory and optionally in a file. */
import { appendFileSync } from "node:fs";

export interface LoggedRequest {
  readonly time: string;
  readonly server: string;
  readonly method: string;
  readonly path: string;
  readonly source: string | null;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  constructor(readonly file?: string) {}

  add(e: LoggedRequest): void {
    this.entries.push(e);
    if (this.file) {
      // The file is for a person reading the lab: no headers or bodies (they hold tokens).
      const { headers: _h, body: _b, ...line } = e;
      appendFileSync(this.file, JSON.stringify(line) + "\n");
    }
  }

  of(server: string): LoggedRequest[] {
    return this.entries.filter((e) => e.server === server);
  }
}
