import { describe, expect, test } from "bun:test";
import { parseChallenges, tokenUrl } from "../../../src/install/oci/challenge.ts";
import { credentialsFor, normaliseRegistryKey } from "../../../src/install/oci/credentials.ts";
import { parseOciReference } from "../../../src/install/oci/reference.ts";

describe("WWW-Authenticate challenges and the token URL", () => {
  test("Docker Hub's Bearer challenge (as registry-1.docker.io sends it) gives its token URL", () => {
    const [c] = parseChallenges('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/debian:pull"');
    expect(c).toEqual({ scheme: "bearer", params: { realm: "https://auth.docker.io/token", service: "registry.docker.io", scope: "repository:library/debian:pull" } });
    expect(tokenUrl(c!, "library/debian")?.href).toBe("https://auth.docker.io/token?service=registry.docker.io&scope=repository%3Alibrary%2Fdebian%3Apull");
  });

  test("without a scope, the pull scope of the repository; without a realm, none", () => {
    const [c] = parseChallenges('Bearer realm="https://ghcr.io/token",service="ghcr.io"');
    expect(tokenUrl(c!, "metal-stack/os")?.searchParams.get("scope")).toBe("repository:metal-stack/os:pull");
    expect(tokenUrl({ scheme: "bearer", params: {} }, "x")).toBeUndefined();
  });

  test("distribution's htpasswd Basic challenge; several challenges; quoted commas and escapes", () => {
    expect(parseChallenges('Basic realm="metal-hammer-test"')).toEqual([{ scheme: "basic", params: { realm: "metal-hammer-test" } }]);
    expect(parseChallenges('Basic realm="a, \\"b\\"", Bearer realm="https://x/t",error="invalid_token"')).toEqual([
      { scheme: "basic", params: { realm: 'a, "b"' } },
      { scheme: "bearer", params: { realm: "https://x/t", error: "invalid_token" } },
    ]);
    expect(parseChallenges("Negotiate")).toEqual([{ scheme: "negotiate", params: {} }]);
    expect(parseChallenges("")).toEqual([]);
  });
});

describe("credentials from oci_configs for an image", () => {
  const ref = parseOciReference("oci://registry.example.com:5000/metal-stack/os/debian:12");
  test("keyed by registry URL (scheme and slashes dropped), host:port, or a repository prefix; the longest wins", () => {
    expect(normaliseRegistryKey("https://Registry.Example.com:5000/")).toBe("registry.example.com:5000");
    expect(credentialsFor({ "https://registry.example.com:5000": { username: "u", password: "p" } }, ref)).toEqual({ username: "u", password: "p" });
    expect(
      credentialsFor(
        {
          "registry.example.com:5000": { username: "all", password: "1" },
          "registry.example.com:5000/metal-stack": { username: "team", password: "2" },
          "registry.example.com:5000/metal-st": { username: "not-a-boundary", password: "3" },
        },
        ref,
      ),
    ).toEqual({ username: "team", password: "2" });
  });

  test("another registry, another port, an entry without a username: none", () => {
    expect(credentialsFor({ "registry.example.com": { username: "u", password: "p" } }, ref)).toBeUndefined();
    expect(credentialsFor({ "other.example.com:5000": { username: "u", password: "p" } }, ref)).toBeUndefined();
    expect(credentialsFor({ "registry.example.com:5000": { password: "p" } }, ref)).toBeUndefined();
    expect(credentialsFor(undefined, ref)).toBeUndefined();
  });
});
