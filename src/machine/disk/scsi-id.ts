/**
 * What a SCSI (SAS) disk says about erasing, from `sg_opcodes --compact` (REPORT
 * SUPPORTED OPERATION CODES), and how a running sanitize or format is doing, from
 * `sg_requests` (REQUEST SENSE). Pure.
 *
 * Operation codes (SBC-4): 04h FORMAT UNIT; 48h SANITIZE with service action 01h
 * overwrite, 02h block erase, 03h cryptographic erase, 1Fh exit failure mode.
 * `--compact` lists one command a line, "48,3      Sanitize, cryptographic erase",
 * after a line of dashes.
 */

export interface ScsiCaps {
  /** INQUIRY vendor, product and revision as sg_opcodes prints them first. */
  readonly model: string;
  readonly sanitizeCrypto: boolean;
  readonly sanitizeBlock: boolean;
  readonly sanitizeOverwrite: boolean;
  readonly formatUnit: boolean;
}

export class ScsiIdError extends Error {
  override readonly name = "ScsiIdError";
}

export function parseScsiOpcodes(text: string): ScsiCaps {
  const lines = text.split("\n");
  const dashes = lines.findIndex((l) => /^-{10,}\s*$/.test(l));
  if (dashes < 0) throw new ScsiIdError(`sg_opcodes: no command list (expected the output of sg_opcodes --compact, got ${JSON.stringify(text.trim().slice(0, 200))})`);
  const ops = new Set<string>();
  for (const l of lines.slice(dashes + 1)) {
    const m = /^\s*([0-9a-f]{2})(?:,([0-9a-f]+))?\s+\S/i.exec(l);
    if (m) ops.add(`${(m[1] as string).toLowerCase()}${m[2] === undefined ? "" : `,${Number.parseInt(m[2], 16)}`}`);
  }
  const model =
    lines
      .find((l) => l.trim() !== "")
      ?.trim()
      .replace(/\s+/g, " ") ?? "";
  return {
    model,
    sanitizeOverwrite: ops.has("48,1"),
    sanitizeBlock: ops.has("48,2"),
    sanitizeCrypto: ops.has("48,3"),
    formatUnit: ops.has("04"),
  };
}

export type ScsiProgress = { readonly state: "running" | "failed" | "done"; readonly percent: number | undefined; readonly sense: string };

/**
 * `sg_requests DEVICE` while a SANITIZE or FORMAT UNIT (IMMED) runs: the sense data
 * says "Logical unit not ready, sanitize in progress" (or "format in progress") with a
 * "Progress indication: 3.78%"; "Sanitize command failed" / "Medium format corrupted"
 * when it failed (then only EXIT FAILURE MODE or a new format clears it); anything
 * else means nothing is in progress any more.
 */
export function parseRequestSense(text: string): ScsiProgress {
  const sense = (/Additional sense:\s*(.*)$/m.exec(text)?.[1] ?? "").trim();
  const p = /Progress indication:\s*([\d.]+)\s*%/.exec(text);
  const percent = p ? Number(p[1]) : undefined;
  if (/sanitize command failed|medium format corrupted|format command failed/i.test(text)) return { state: "failed", percent, sense };
  if (percent !== undefined || /in progress/i.test(sense)) return { state: "running", percent, sense };
  return { state: "done", percent: undefined, sense };
}
