/** Reads a recorded fixture (test/fixtures/netlink/<name>.hex): one datagram per line. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function fixture(name: string): Uint8Array[] {
  const text = readFileSync(join(import.meta.dir, "../../fixtures/netlink", `${name}.hex`), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => new Uint8Array(Buffer.from(l.trim(), "hex")));
}

export const one = (name: string): Uint8Array => {
  const f = fixture(name)[0];
  if (!f) throw new Error(`fixture ${name} is empty`);
  return f;
};

export const hexBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
