import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { checkConfigPlatform, MAX_MANIFEST_BYTES, MEDIA, ociArchitecture, parseManifestDocument, selectPlatform } from "../../../src/install/oci/manifest.ts";

const d = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const amd64 = { os: "linux", architecture: "amd64" };

function ociImageError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("oci_image");
    expect((e as AgentError).exitCode).toBe(58);
    return (e as AgentError).message;
  }
  throw new Error("accepted");
}

const manifest = (layers: unknown[]) => ({
  schemaVersion: 2,
  mediaType: MEDIA.ociManifest,
  config: { mediaType: MEDIA.ociConfig, digest: d(1), size: 1234 },
  layers,
});

describe("index -> platform -> manifest -> layer plan", () => {
  // Shape of `skopeo inspect --raw docker://debian:12` (a Docker manifest list with an attestation-free list).
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA.ociIndex,
    manifests: [
      { mediaType: MEDIA.ociManifest, digest: d(10), size: 1000, platform: { os: "linux", architecture: "arm64", variant: "v8" } },
      { mediaType: MEDIA.ociManifest, digest: d(11), size: 1001, platform: { os: "unknown", architecture: "unknown" } },
      { mediaType: MEDIA.ociManifest, digest: d(12), size: 1002, platform: { os: "linux", architecture: "amd64" } },
    ],
  };

  test("the index entry of linux/amd64 is chosen; linux/arm64 (variant v8) for an arm64 machine", () => {
    const doc = parseManifestDocument(enc(index), MEDIA.ociIndex, "index");
    if (doc.kind !== "index") throw new Error("expected an index");
    expect(selectPlatform(doc.manifests, amd64, "index")).toEqual({ mediaType: MEDIA.ociManifest, digest: d(12), size: 1002 });
    expect(selectPlatform(doc.manifests, { os: "linux", architecture: ociArchitecture("arm64") }, "index").digest).toBe(d(10));
    expect(ociArchitecture("x64")).toBe("amd64");
  });

  test("no entry for the machine: the platforms there are listed", () => {
    const doc = parseManifestDocument(enc(index), "application/vnd.oci.image.index.v1+json; charset=utf-8", "index");
    if (doc.kind !== "index") throw new Error("expected an index");
    expect(ociImageError(() => selectPlatform(doc.manifests, { os: "linux", architecture: "riscv64" }, "index of oci://r/x:1"))).toBe(
      "index of oci://r/x:1: no manifest for linux/riscv64 in the index (it has: linux/arm64/v8, unknown/unknown, linux/amd64)",
    );
  });

  test("a Docker v2 manifest: gzip layers, in order, numbered", () => {
    const m = {
      schemaVersion: 2,
      mediaType: MEDIA.dockerManifest,
      config: { mediaType: MEDIA.dockerConfig, digest: d(1), size: 7 },
      layers: [
        { mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", digest: d(2), size: 30 },
        { mediaType: "application/vnd.oci.image.layer.v1.tar+zstd", digest: d(3), size: 40 },
        { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: d(4), size: 50 },
      ],
    };
    const doc = parseManifestDocument(enc(m), MEDIA.dockerManifest, "manifest");
    expect(doc).toEqual({
      kind: "manifest",
      plan: {
        config: { mediaType: MEDIA.dockerConfig, digest: d(1), size: 7 },
        layers: [
          { mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", digest: d(2), size: 30, compression: "gzip", index: 1 },
          { mediaType: "application/vnd.oci.image.layer.v1.tar+zstd", digest: d(3), size: 40, compression: "zstd", index: 2 },
          { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: d(4), size: 50, compression: "none", index: 3 },
        ],
      },
    });
  });

  test("foreign and non-distributable layers, external urls and unknown media types are refused by name", () => {
    const foreign = manifest([{ mediaType: "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip", digest: d(5), size: 1 }]);
    expect(ociImageError(() => parseManifestDocument(enc(foreign), MEDIA.ociManifest, "m"))).toBe(
      `m: layer 1/1 ${d(5)} is a foreign/non-distributable layer (application/vnd.docker.image.rootfs.foreign.diff.tar.gzip): refused, it is not fetched from outside the registry`,
    );
    const nd = manifest([
      { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: d(6), size: 1 },
      { mediaType: "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip", digest: d(7), size: 1 },
    ]);
    expect(ociImageError(() => parseManifestDocument(enc(nd), MEDIA.ociManifest, "m"))).toContain(`layer 2/2 ${d(7)} is a foreign/non-distributable layer`);
    const urls = manifest([{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: d(8), size: 1, urls: ["https://elsewhere.example/blob"] }]);
    expect(ociImageError(() => parseManifestDocument(enc(urls), MEDIA.ociManifest, "m"))).toBe(
      `m: layer 1/1 ${d(8)} names external urls: refused, only the registry's own blobs are fetched`,
    );
    const helm = manifest([{ mediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", digest: d(9), size: 1 }]);
    expect(ociImageError(() => parseManifestDocument(enc(helm), MEDIA.ociManifest, "m"))).toContain(
      "has media type application/vnd.cncf.helm.chart.content.v1.tar+gzip, not one of",
    );
  });

  test("bounds and shapes: too large, schema 1, a sha512 digest, a type mismatch, an artifact config", () => {
    expect(ociImageError(() => parseManifestDocument(new Uint8Array(MAX_MANIFEST_BYTES + 1), MEDIA.ociManifest, "m"))).toBe(
      `m: ${MAX_MANIFEST_BYTES + 1} bytes, more than the bound of ${MAX_MANIFEST_BYTES}`,
    );
    expect(ociImageError(() => parseManifestDocument(enc({ schemaVersion: 1 }), undefined, "m"))).toContain("schemaVersion 1, expected 2");
    const sha512 = manifest([{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: `sha512:${"0".repeat(128)}`, size: 1 }]);
    expect(ociImageError(() => parseManifestDocument(enc(sha512), MEDIA.ociManifest, "m"))).toContain("m: layer 1/1: digest");
    expect(ociImageError(() => parseManifestDocument(enc(manifest([])), MEDIA.ociIndex, "m"))).toBe(`m: served as ${MEDIA.ociIndex} but declares mediaType ${MEDIA.ociManifest}`);
    const artifact = { ...manifest([]), config: { mediaType: "application/vnd.cncf.helm.config.v1+json", digest: d(1), size: 1 } };
    expect(ociImageError(() => parseManifestDocument(enc(artifact), MEDIA.ociManifest, "m"))).toContain("is not an image config");
    const hugeConfig = { ...manifest([]), config: { mediaType: MEDIA.ociConfig, digest: d(1), size: 5 << 20 } };
    expect(ociImageError(() => parseManifestDocument(enc(hugeConfig), MEDIA.ociManifest, "m"))).toBe(`m: config: size ${5 << 20} is more than the bound of ${4 << 20}`);
  });

  test("the config's platform must be the machine's; its Env and Labels are not read", () => {
    const cfg = { os: "linux", architecture: "amd64", config: { Env: ["PATH=/evil"], Labels: { a: "b" }, Entrypoint: ["/x"] }, rootfs: { type: "layers", diff_ids: [] } };
    expect(() => checkConfigPlatform(enc(cfg), amd64, "config")).not.toThrow();
    expect(ociImageError(() => checkConfigPlatform(enc({ ...cfg, architecture: "arm64" }), amd64, "config"))).toBe(
      'config: the image is for "linux"/"arm64", this machine is linux/amd64',
    );
  });
});
