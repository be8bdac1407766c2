import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

const CL = "METAL_BOOT_URL=https://[fd00::1]:8443/";
const URL_OK = "https://[fd00::1]:8445/debian/12/img.tar.lz4";

describe("image install refuses bad input before any download", () => {
  const dir = mkdtempSync(join(tmpdir(), "mh-image-cli-"));
  const file = join(dir, "a-file");
  writeFileSync(file, "x");
  const empty = join(dir, "empty");
  mkdirSync(empty);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (args: string[]) => {
    const c = captureContext();
    const code = await runCli(["image", "install", ...args], c.ctx);
    return { code, err: c.err() };
  };

  test("a target that does not exist is a usage error naming it, nothing is created", async () => {
    const missing = join(dir, "nope");
    expect(await run([URL_OK, "--target", missing, "--cmdline", CL])).toEqual({
      code: 2,
      err: `metal-hammer: image install: --target ${missing}: no such directory (it is not created: give an existing, empty directory)\n`,
    });
  });

  test("a target that is a file, or no target at all, is a usage error", async () => {
    expect(await run([URL_OK, "--target", file, "--cmdline", CL])).toEqual({ code: 2, err: `metal-hammer: image install: --target ${file}: not a directory\n` });
    expect((await run([URL_OK, "--cmdline", CL])).code).toBe(2);
  });

  test("a target that is not empty is a usage error (a restart from byte 0 would empty it); lost+found alone is empty", async () => {
    const full = join(dir, "full");
    mkdirSync(join(full, "lost+found"), { recursive: true });
    writeFileSync(join(full, "keep-me"), "data");
    expect(await run([URL_OK, "--target", full, "--cmdline", CL])).toEqual({
      code: 2,
      err: `metal-hammer: image install: --target ${full}: not empty (1 entries, e.g. keep-me): a restart from byte 0 empties the target, so it must hold nothing\n`,
    });
    rmSync(join(full, "keep-me"));
    // Past the target check: the http refusal comes next.
    expect((await run(["http://[fd00::1]/img.tar.lz4", "--target", full, "--cmdline", CL])).err).toContain("plain http is refused");
  });

  test("a URL that is none, or not http(s), is a usage error", async () => {
    expect(await run(["debian/12/img.tar.lz4", "--target", empty, "--cmdline", CL])).toEqual({
      code: 2,
      err: 'metal-hammer: image install: "debian/12/img.tar.lz4" is not a URL: expected an absolute https:// URL of an img.tar.lz4\n',
    });
    expect((await run(["ftp://[fd00::1]/img.tar.lz4", "--target", empty, "--cmdline", CL])).code).toBe(2);
  });

  test("plain http is refused without METAL_ALLOW_HTTP=1 on the cmdline, as every command refuses it", async () => {
    expect(await run(["http://[fd00::1]:8445/img.tar.lz4", "--target", empty, "--cmdline", CL])).toEqual({
      code: 2,
      err: "metal-hammer: image install: http://[fd00::1]:8445/img.tar.lz4: plain http is refused unless METAL_ALLOW_HTTP=1 is on the kernel cmdline\n",
    });
  });
});

describe("image pull refuses bad input before any request", () => {
  const dir = mkdtempSync(join(tmpdir(), "mh-image-pull-cli-"));
  const empty = join(dir, "empty");
  mkdirSync(empty);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const REF = "oci://registry.example.com/metal-stack/debian:12";

  const run = async (args: string[]) => {
    const c = captureContext();
    const code = await runCli(["image", "pull", ...args], c.ctx);
    return { code, err: c.err() };
  };

  test("a reference that is not oci://REGISTRY/REPO:TAG is a usage error naming what is wrong", async () => {
    expect(await run(["https://r.example/x.tar.lz4", "--to", empty, "--cmdline", CL])).toEqual({
      code: 2,
      err: 'metal-hammer: image "https://r.example/x.tar.lz4": not an oci:// URL (expected oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST)\n',
    });
  });

  test("--to must be an existing, empty directory", async () => {
    expect(await run([REF, "--cmdline", CL])).toEqual({ code: 2, err: "metal-hammer: image pull: --to DIR is required (an existing directory the image is unpacked into)\n" });
    expect((await run([REF, "--to", join(dir, "nope"), "--cmdline", CL])).err).toContain("image pull: --to");
  });

  test("an auth file others may read is refused without reading it; its passwords never in the error", async () => {
    const auth = join(dir, "auth.json");
    writeFileSync(auth, JSON.stringify({ "registry.example.com": { username: "u", password: "auth-file-pw-5521" } }), { mode: 0o644 });
    const open = await run([REF, "--to", empty, "--auth-file", auth, "--cmdline", CL]);
    expect(open).toEqual({ code: 2, err: `metal-hammer: image pull: --auth-file ${auth}: mode 644 lets others read it: chmod 600 it first\n` });
    writeFileSync(auth, JSON.stringify({ "registry.example.com": { password: "auth-file-pw-5521" } }));
    chmodSync(auth, 0o600);
    const r = await run([REF, "--to", empty, "--auth-file", auth, "--cmdline", CL]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('entry "registry.example.com" needs a username and a password');
    expect(r.err).not.toContain("auth-file-pw-5521");
  });
});
