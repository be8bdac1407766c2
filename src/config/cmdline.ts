/**
 * Splits a kernel command line the way the kernel's next_arg() (lib/cmdline.c,
 * kernel/params.c) does: whitespace separates, a double quote toggles quoting
 * anywhere in a word, the first '=' splits key from value, quotes around the value
 * (or around the whole word) are removed, a bare word is a flag, and a bare `--`
 * ends the kernel's parameters (what follows is for init). Pure: no I/O.
 */

export interface ParsedCmdline {
  /** Every key=value or bare flag before `--`, the last duplicate winning. Flags map to `null`. */
  readonly params: ReadonlyMap<string, string | null>;
  /** Words after a bare `--`, in order (the kernel hands them to init). */
  readonly initArgs: readonly string[];
}

interface Word {
  key: string;
  value: string | null;
}

const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f";

function nextWord(s: string, start: number): { word: Word; end: number } {
  let i = start;
  let quoted = false;
  let inQuote = false;
  if (s[i] === '"') {
    i++;
    inQuote = true;
    quoted = true;
  }
  const wordStart = i;
  let equals = -1;
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if (isSpace(c) && !inQuote) break;
    if (equals < 0 && c === "=") equals = i;
    if (c === '"') inQuote = !inQuote;
  }
  let wordEnd = i;
  // The kernel drops a trailing quote when the word or the value started with one.
  let key: string;
  let value: string | null;
  if (equals < 0) {
    if (quoted && wordEnd > wordStart && s[wordEnd - 1] === '"') wordEnd--;
    key = s.slice(wordStart, wordEnd);
    value = null;
  } else {
    key = s.slice(wordStart, equals);
    let valueStart = equals + 1;
    if (s[valueStart] === '"') {
      valueStart++;
      if (wordEnd > valueStart && s[wordEnd - 1] === '"') wordEnd--;
    } else if (quoted && wordEnd > valueStart && s[wordEnd - 1] === '"') {
      wordEnd--;
    }
    value = s.slice(valueStart, Math.max(valueStart, wordEnd));
  }
  return { word: { key, value }, end: i };
}

export function parseCmdline(text: string): ParsedCmdline {
  const params = new Map<string, string | null>();
  const initArgs: string[] = [];
  let i = 0;
  let afterDashes = false;
  while (i < text.length) {
    while (i < text.length && isSpace(text[i] as string)) i++;
    if (i >= text.length) break;
    const { word, end } = nextWord(text, i);
    i = end;
    if (afterDashes) {
      initArgs.push(word.value === null ? word.key : `${word.key}=${word.value}`);
      continue;
    }
    if (word.key === "--" && word.value === null) {
      afterDashes = true;
      continue;
    }
    if (word.key === "") continue;
    // Map keeps insertion order; delete first so the last duplicate also sorts last.
    params.delete(word.key);
    params.set(word.key, word.value);
  }
  return { params, initArgs };
}

/** Decodes /proc/cmdline bytes: UTF-8 where valid, every invalid byte as U+FFFD. */
export function decodeCmdlineBytes(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes).replace(/\0+$/g, "");
}
