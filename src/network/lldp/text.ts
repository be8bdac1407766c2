/**
 * Text from the wire is untrusted: a switch (or anything on the segment) chooses every
 * byte of an LLDP string. wireText turns TLV bytes into a string that is safe for a
 * log line, a terminal and an error message: valid UTF-8 stays as it is, except
 * control and format characters (C0, DEL, C1, bidi overrides, zero-width, line
 * separators), which become `\xNN` / `\u{N}`; a backslash becomes `\\`, so the
 * escaping cannot be forged. Bytes that are not valid UTF-8 are escaped one by one.
 * Pure.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\\]/gu;

const hex2 = (n: number): string => n.toString(16).padStart(2, "0");

function escapeChar(ch: string): string {
  if (ch === "\\") return "\\\\";
  const cp = ch.codePointAt(0) ?? 0;
  return cp < 0x100 ? `\\x${hex2(cp)}` : `\\u{${cp.toString(16)}}`;
}

/** A string as safe as wireText's, from a JS string (e.g. a value already decoded). */
export function escapeText(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function wireText(bytes: Uint8Array): string {
  let s: string;
  try {
    s = strict.decode(bytes);
  } catch {
    let out = "";
    for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : b === 0x5c ? "\\\\" : `\\x${hex2(b)}`;
    return out;
  }
  return escapeText(s);
}

export function hexText(bytes: Uint8Array): string {
  return Array.from(bytes, hex2).join("");
}
