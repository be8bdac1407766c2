import { describe, expect, test } from "bun:test";
import { parseChecksumFile } from "../../../src/clients/image-cache/checksum.ts";

const sha = "f869edef409aca3a19feeafdc51f3324c32429867c045e05c1894f4aff69637a";
const md5 = "d41d8cd98f00b204e9800998ecf8427e";

describe("checksum sidecars", () => {
  test("sha256sum format: digest, two spaces, name", () => {
    expect(parseChecksumFile(`${sha}  img.tar.lz4\n`, "sha256")).toEqual({ algo: "sha256", hex: sha });
  });

  test("a bare digest (metal-images .md5), upper case accepted", () => {
    expect(parseChecksumFile(`${md5.toUpperCase()}\n`, "md5")).toEqual({ algo: "md5", hex: md5 });
  });

  test("comments and blank lines are skipped", () => {
    expect(parseChecksumFile(`# made by ci\n\n${md5} *img\n`, "md5")).toEqual({ algo: "md5", hex: md5 });
  });

  test("a wrong length or non-hex says what was expected", () => {
    expect(parseChecksumFile(`${md5}  img`, "sha256")).toEqual({ error: `expected 64 hex digits (sha256) at the start, got "${md5}"` });
    expect(parseChecksumFile("<html>", "md5")).toEqual({ error: 'expected 32 hex digits (md5) at the start, got "<html>"' });
    expect(parseChecksumFile("\n", "md5")).toEqual({ error: "empty checksum file" });
  });
});
