/**
 * /etc/metal/boot-info.yaml, written by the image's installer: which kernel, initrd
 * and cmdline to kexec (metal-stack/os-installer@7ea1c98 api/v1/api.go:18 Bootinfo:
 * yaml `initrd`, `cmdline`, `kernel`, `bootloader_id`). Pure.
 *
 * The parser is strict for the one shape installers write (go-yaml's Marshal of that
 * struct): one `key: value` per line, values plain, single- or double-quoted. Every
 * missing required field is named. `kernel` and `cmdline` are required (kexec needs
 * them); `initrd` may be empty (metal-hammer's pkg/kernel RunKexec allows it) and so
 * may `bootloader_id` (only used for the EFI boot order). kernel and initrd are absolute
 * paths without ".." (they are opened below the target root, and must stay there).
 */
export interface BootInfo {
  readonly kernel: string;
  readonly initrd: string;
  readonly cmdline: string;
  readonly bootloaderId: string;
}

const KEYS = ["kernel", "initrd", "cmdline", "bootloader_id"] as const;
type Key = (typeof KEYS)[number];
const REQUIRED: readonly Key[] = ["kernel", "cmdline"];

export class BootInfoError extends Error {
  override readonly name = "BootInfoError";
}

/** What may follow a quoted value: blanks and an optional comment. */
const TRAILER = /^\s*(#.*)?$/;

function unquote(raw: string, line: number): string {
  const v = raw.trim();
  if (v === "" || v === "~" || v === "null") return "";
  if (v.startsWith('"')) {
    // The closing quote is the first one not escaped by a backslash.
    const m = /^"((?:[^"\\]|\\.)*)"(.*)$/.exec(v);
    if (!m || !TRAILER.test(m[2] ?? "")) throw new BootInfoError(`line ${line}: unterminated double-quoted value`);
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      throw new BootInfoError(`line ${line}: bad escape in double-quoted value`);
    }
  }
  if (v.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'(.*)$/.exec(v);
    if (!m || !TRAILER.test(m[2] ?? "")) throw new BootInfoError(`line ${line}: unterminated single-quoted value`);
    return (m[1] ?? "").replaceAll("''", "'");
  }
  if (/^[|>&*!\[{]/.test(v)) throw new BootInfoError(`line ${line}: unsupported YAML value ${JSON.stringify(v.slice(0, 40))} (expected a plain or quoted string)`);
  // A plain scalar ends at " #" (a comment).
  const hash = v.indexOf(" #");
  return (hash >= 0 ? v.slice(0, hash) : v).trimEnd();
}

export function parseBootInfo(text: string): BootInfo {
  const seen = new Map<Key, string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").replace(/\r$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#") || line === "---") continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*):(?:\s(.*))?$/.exec(line);
    if (!m) throw new BootInfoError(`line ${i + 1}: expected "key: value", got ${JSON.stringify(line.slice(0, 60))}`);
    const key = m[1] as string;
    if (!(KEYS as readonly string[]).includes(key)) continue; // a newer installer may add fields
    if (seen.has(key as Key)) throw new BootInfoError(`line ${i + 1}: ${key} given twice`);
    seen.set(key as Key, unquote(m[2] ?? "", i + 1));
  }
  const missing = REQUIRED.filter((k) => !seen.get(k));
  if (missing.length > 0) throw new BootInfoError(`missing or empty: ${missing.join(", ")} (expected keys ${KEYS.join(", ")})`);
  const kernel = seen.get("kernel") ?? "";
  const initrd = seen.get("initrd") ?? "";
  for (const [k, v] of [
    ["kernel", kernel],
    ["initrd", initrd],
  ] as const) {
    if (v !== "" && (!v.startsWith("/") || v.split("/").includes("..")))
      throw new BootInfoError(`${k}: expected an absolute path inside the installed OS (no ".."), got ${JSON.stringify(v)}`);
  }
  return { kernel, initrd, cmdline: seen.get("cmdline") ?? "", bootloaderId: seen.get("bootloader_id") ?? "" };
}
