/**
 * The boot server's request log: one JSON line per finished request (a file transfer
 * finishes when its last byte was handed to the socket). Pure codec.
 */
import { z } from "zod";

export const RequestLogEntrySchema = z.object({
  /** Epoch milliseconds when the request arrived and when its response body ended. */
  start: z.number(),
  end: z.number(),
  method: z.string(),
  /** Path with query. */
  path: z.string(),
  /** The client's address as the socket saw it. */
  src: z.string(),
  status: z.number().int(),
  bytes: z.number().int().nonnegative(),
  partition: z.string().optional(),
  /** The URL's scheme and host as the client asked (https://metal-boot.chain.lab): which name, over TLS or not. */
  origin: z.string().optional(),
});

export type RequestLogEntry = z.output<typeof RequestLogEntrySchema>;

export const encodeEntry = (e: RequestLogEntry): string => JSON.stringify(e) + "\n";

/** Parses a whole log; a malformed line throws naming its line number. Sorted by arrival. */
export function parseRequestLog(text: string): RequestLogEntry[] {
  const out: RequestLogEntry[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`request log line ${i + 1}: not JSON`);
    }
    const r = RequestLogEntrySchema.safeParse(json);
    if (!r.success) throw new Error(`request log line ${i + 1}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
    out.push(r.data);
  });
  return out.sort((a, b) => a.start - b.start);
}
