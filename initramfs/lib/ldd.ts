/**
 * Parses `ldd` output into the files a dynamic executable loads, and checks it
 * against the ELF headers (elf.ts) so a library ldd did not report, or one it could
 * not find, fails the build instead of the boot. Pure.
 */
export interface SharedLib {
  /** The soname as DT_NEEDED names it ("libc.so.6"), or the interpreter's path. */
  readonly name: string;
  /** Where the loader found it on the build host (and where it must be in the image). */
  readonly path: string;
}

export class LddError extends Error {
  override readonly name = "LddError";
}

/** `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)`, `/lib64/ld-linux-x86-64.so.2 (0x...)`, vdso lines skipped. */
export function parseLdd(text: string): SharedLib[] {
  const out: SharedLib[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || /^linux-(vdso|gate)\.so/.test(line)) continue;
    if (/statically linked|not a dynamic executable/.test(line)) continue;
    let m = /^(\S+) => not found$/.exec(line);
    if (m) throw new LddError(`ldd: ${m[1]} not found on the build host`);
    m = /^(\S+) => (\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (m) {
      out.push({ name: m[1] as string, path: m[2] as string });
      continue;
    }
    m = /^(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (m) {
      out.push({ name: m[1] as string, path: m[1] as string });
      continue;
    }
    throw new LddError(`ldd: cannot read the line ${JSON.stringify(line)}`);
  }
  return out;
}

/**
 * Checks that `libs` is exactly the closure of what the ELF headers ask for:
 * every DT_NEEDED (of the binary and of each library) is present, the interpreter is
 * present, and nothing extra is. `neededOf(path)` returns a library's DT_NEEDED.
 * glibc's libraries name the interpreter by its soname ("ld-linux-x86-64.so.2");
 * ldd reports it by path: both spellings are the same file.
 */
export function verifyClosure(
  binary: { interpreter: string | undefined; needed: readonly string[] },
  libs: readonly SharedLib[],
  neededOf: (path: string) => readonly string[],
): void {
  const interp = binary.interpreter;
  const find = (name: string): SharedLib | undefined =>
    libs.find((l) => l.name === name) ?? (interp && name === interp.slice(interp.lastIndexOf("/") + 1) ? libs.find((l) => l.name === interp) : undefined);
  const used = new Set<string>();
  const queue = [...binary.needed];
  if (interp) {
    if (!find(interp)) throw new LddError(`the interpreter ${interp} is missing from the ldd output`);
    queue.push(interp);
  }
  const seen = new Set<string>();
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const lib = find(name);
    if (!lib) throw new LddError(`the ELF headers need ${name}, which ldd did not report`);
    used.add(lib.path);
    queue.push(...neededOf(lib.path));
  }
  for (const l of libs) if (!used.has(l.path)) throw new LddError(`ldd reported ${l.name}, which no ELF header asks for`);
}
