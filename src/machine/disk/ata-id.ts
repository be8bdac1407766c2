/**
 * What an ATA drive says about erasing, from `hdparm -I` (IDENTIFY DEVICE as hdparm 9.x
 * prints it) and `hdparm --sanitize-status`. Pure.
 *
 * The Security section (hdparm identify.c): one line per state bit, "not" in front
 * when the bit is clear ("\tnot\tfrozen"), then the drive's own time estimates
 * ("138min for SECURITY ERASE UNIT. 138min for ENHANCED SECURITY ERASE UNIT.", "more
 * than 508min" when the drive says so: IDENTIFY words 89/90 count 2-minute units).
 * The section is absent when the drive has no Security feature set. The SANITIZE
 * feature set and its commands are listed under Commands/features by name. Output
 * copied from web pages has the tabs turned into spaces, so lines are compared with
 * their white space collapsed.
 */

export interface EraseEstimate {
  readonly minutes: number;
  /** hdparm printed "more than": the drive only says it takes longer. */
  readonly atLeast: boolean;
}

export interface AtaSecurity {
  readonly supported: boolean;
  /** A user password is set (SECURITY SET PASSWORD ran and nothing disabled it since). */
  readonly enabled: boolean;
  /** Reads and writes are refused until SECURITY UNLOCK with the password. */
  readonly locked: boolean;
  /** SECURITY FREEZE LOCK ran (firmware does it at boot): no security command until a power cycle. */
  readonly frozen: boolean;
  /** Five wrong passwords: the drive refuses further attempts until a power cycle. */
  readonly countExpired: boolean;
  readonly enhancedErase: boolean;
  readonly eraseEstimate: EraseEstimate | undefined;
  readonly enhancedEraseEstimate: EraseEstimate | undefined;
}

export interface AtaSanitize {
  readonly crypto: boolean;
  readonly block: boolean;
  readonly overwrite: boolean;
}

export interface AtaCaps {
  readonly model: string;
  /** Undefined: the drive has no Security feature set (hdparm printed no Security section). */
  readonly security: AtaSecurity | undefined;
  /** All false without the SANITIZE feature set. */
  readonly sanitize: AtaSanitize;
}

export class AtaIdError extends Error {
  override readonly name = "AtaIdError";
}

const norm = (l: string): string => l.trim().replace(/\s+/g, " ");

/** The Security section's lines (normalized), or undefined when there is none. */
function securityLines(text: string): string[] | undefined {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^\s*Security:\s*$/.test(l));
  if (start < 0) return undefined;
  const indent = (l: string): number => l.length - l.trimStart().length;
  const own = indent(lines[start] as string);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    // The section ends at the next line that is not indented deeper than its heading.
    if (l.trim() === "" || indent(l) <= own) break;
    out.push(norm(l));
  }
  return out;
}

function estimate(lines: readonly string[], enhanced: boolean): EraseEstimate | undefined {
  const re = enhanced ? /(more than )?(\d+)min for ENHANCED SECURITY ERASE UNIT/ : /(more than )?(\d+)min for SECURITY ERASE UNIT/;
  for (const l of lines) {
    // The normal estimate's pattern also matches inside "ENHANCED SECURITY ERASE UNIT": take the text before it.
    const part = enhanced ? l : (l.split(/(?:more than )?\d+min for ENHANCED/)[0] ?? "");
    const m = re.exec(part);
    if (m) return { minutes: Number(m[2]), atLeast: m[1] !== undefined };
  }
  return undefined;
}

/**
 * The Security section of `hdparm -I` (or the section alone); undefined when there is
 * none. A section without its "supported" line is not hdparm's: refused, naming it.
 */
export function parseAtaSecurity(text: string): AtaSecurity | undefined {
  const lines = securityLines(text);
  if (lines === undefined) return undefined;
  const flag = (name: string): boolean | undefined => {
    for (const l of lines) {
      if (l === name) return true;
      if (l === `not ${name}`) return false;
    }
    return undefined;
  };
  const supported = flag("supported");
  if (supported === undefined) throw new AtaIdError(`hdparm -I: the Security section has no "supported" line (got: ${lines.slice(0, 3).join(" | ") || "nothing"})`);
  return {
    supported,
    enabled: flag("enabled") ?? false,
    locked: flag("locked") ?? false,
    frozen: flag("frozen") ?? false,
    countExpired: flag("expired: security count") ?? false,
    enhancedErase: flag("supported: enhanced erase") ?? false,
    eraseEstimate: estimate(lines, false),
    enhancedEraseEstimate: estimate(lines, true),
  };
}

/** The Commands/features list: names of what the drive supports (the leading "*" only says enabled). */
function features(text: string): Set<string> {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^Commands\/features:\s*$/.test(l));
  const out = new Set<string>();
  if (start < 0) return out;
  for (const l of lines.slice(start + 1)) {
    if (!/^\s/.test(l)) break;
    out.add(norm(l).replace(/^\*\s*/, ""));
  }
  return out;
}

/**
 * `hdparm -I DEVICE`: undefined when the device is not an ATA device. hdparm prints
 * "ATA device" for any answer to ATA PASS-THROUGH, also the all-zero IDENTIFY a SCSI
 * target returns (the kernel's scsi_debug does: no model, no features), so a drive
 * without a model number does not count either.
 */
export function parseHdparmIdentify(text: string): AtaCaps | undefined {
  if (!/^ATA device\b/m.test(text)) return undefined;
  const model = norm(/^\s*Model Number:(.*)$/m.exec(text)?.[1] ?? "");
  if (model === "") return undefined;
  const f = features(text);
  const sanitize = f.has("SANITIZE feature set");
  return {
    model,
    security: parseAtaSecurity(text),
    sanitize: {
      crypto: sanitize && f.has("CRYPTO_SCRAMBLE_EXT command"),
      block: sanitize && f.has("BLOCK_ERASE_EXT command"),
      overwrite: sanitize && f.has("OVERWRITE_EXT command"),
    },
  };
}

export type AtaSanitizeState = { readonly state: "idle" | "frozen" | "running" | "failed" | "done"; readonly percent: number | undefined };

/**
 * `hdparm --sanitize-status DEVICE`: "State: SD0 Sanitize Idle" .. "SD4 Sanitize
 * Operation succeeded" (hdparm's sanitize_states_str), "Progress: 0x8000 (50%)" while
 * SD2. Refused, naming the output, when no state line is found.
 */
export function parseAtaSanitizeStatus(text: string): AtaSanitizeState {
  const m = /State:\s*SD(\d)\b/.exec(text);
  if (!m) throw new AtaIdError(`hdparm --sanitize-status: no "State: SDn" line in ${JSON.stringify(text.trim().slice(0, 200))}`);
  const p = /Progress:\s*0x[0-9a-f]+\s*\((\d+)%\)/i.exec(text);
  const states = ["idle", "frozen", "running", "failed", "done"] as const;
  const state = states[Number(m[1])];
  if (state === undefined) throw new AtaIdError(`hdparm --sanitize-status: unknown state SD${m[1]}`);
  return { state, percent: p ? Number(p[1]) : undefined };
}
