import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { formatOciReference, manifestRef, parseOciReference } from "../../../src/install/oci/reference.ts";

const D = `sha256:${"ab".repeat(32)}`;

function usage(url: string): string {
  try {
    parseOciReference(url);
  } catch (e) {
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("usage");
    return (e as AgentError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe("oci:// image references", () => {
  test("registry with port, nested repository and tag", () => {
    const r = parseOciReference("oci://registry.example.com:5000/metal-stack/os/debian:12");
    expect(r).toEqual({ registry: "registry.example.com:5000", repository: "metal-stack/os/debian", tag: "12", digest: undefined });
    expect(manifestRef(r)).toBe("12");
    expect(formatOciReference(r)).toBe("oci://registry.example.com:5000/metal-stack/os/debian:12");
  });

  test("a digest pins the image: it is what the manifest request names, the tag only a label", () => {
    expect(parseOciReference(`oci://[fd00::1]:443/os/ubuntu@${D}`)).toEqual({ registry: "[fd00::1]:443", repository: "os/ubuntu", tag: undefined, digest: D });
    const both = parseOciReference(`oci://ghcr.io/metal-stack/debian:12.5-stable@${D}`);
    expect(both.tag).toBe("12.5-stable");
    expect(manifestRef(both)).toBe(D);
  });

  test("refused with the part that is wrong named", () => {
    expect(usage("https://r/x:1")).toContain("not an oci:// URL");
    expect(usage("oci://registry.example.com")).toContain("no repository after the registry");
    expect(usage("oci://r.example/debian")).toContain("neither a tag nor a digest");
    expect(usage("oci://r.example/Debian:12")).toContain('the repository component "Debian"');
    expect(usage("oci://r.example/os//debian:12")).toContain('the repository component ""');
    expect(usage("oci://r.example/debian:-12")).toContain('the tag "-12"');
    expect(usage(`oci://r.example/debian@sha256:${"AB".repeat(32)}`)).toContain("is not sha256:<64 lowercase hex>");
    expect(usage(`oci://r.example/debian@sha512:${"ab".repeat(64)}`)).toContain("is not sha256:");
    const withUserinfo = usage("oci://user:hunter22@r.example/debian:12");
    expect(withUserinfo).toStartWith('image "oci://[redacted]@r.example/debian:12"');
    expect(withUserinfo).not.toContain("hunter22");
    expect(usage("oci://r_x.example/debian:12")).toContain('the registry "r_x.example"');
  });
});
