/**
 * The test OS image as an OCI image with whiteouts, written as an OCI image layout
 * (image-spec image-layout.md) for `skopeo copy` to push: three layers, one per
 * compression the agent reads, the later ones hiding files of the earlier:
 *   1 tar+gzip  the test OS tree (or tar+zstd: `layer1`) (build.ts) plus /opt/app/{a,b}
 *   2 tar+zstd  data/.wh.secret, var/.wh.empty (a directory), opt/app/.wh..wh..opq + opt/app/c
 *   3 tar       data/new-file, bin/.wh.dd (a symbolic link)
 * The same final tree is packed as `final.tar.lz4` for the tar install to compare with.
 * The layout's tag points at an image index with linux/amd64 and linux/arm64 entries.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestImage, type TestImageInstaller } from "./build.ts";

export interface OciTestImage {
  /** The OCI layout directory (`oci:DIR:TAG` for skopeo). */
  readonly layout: string;
  readonly tag: string;
  /** The final tree as a tar.lz4 (with .sha256 sidecar), in `finalDir`. */
  readonly finalDir: string;
  readonly layers: readonly { readonly digest: string; readonly mediaType: string; readonly size: number }[];
  readonly manifest: string;
}

function sh(script: string): void {
  const r = spawnSync("sh", ["-euc", script], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${script.slice(0, 200)}: ${r.stderr}`);
}

const sha = (b: Uint8Array): string => new Bun.CryptoHasher("sha256").update(b).digest("hex");

/** `layer1`: how the big first layer is compressed (default gzip, as most registries' images are). */
/** `base`: the test OS's kernel and installer (the lab's install run, make lab IMAGE=oci); default none. */
export function buildOciTestImage(out: string, opts: { padMib?: number; layer1?: "gzip" | "zstd"; base?: { kernel?: string; installer?: TestImageInstaller } } = {}): OciTestImage {
  const work = mkdtempSync(join(tmpdir(), "mh-oci-"));
  try {
    const base = buildTestImage(join(work, "base"), {
      padMib: opts.padMib ?? 0,
      installer: opts.base?.installer ?? "none",
      ...(opts.base?.kernel ? { kernel: opts.base.kernel } : {}),
    });
    const l1 = join(work, "l1");
    const l2 = join(work, "l2");
    const l3 = join(work, "l3");
    const fin = join(work, "final");
    for (const d of [l1, l2, l3, fin]) mkdirSync(d);
    sh(`lz4 -dc "${base.image}" | tar -C "${l1}" -xpf - --xattrs --xattrs-include='*' --numeric-owner
        mkdir -p "${l1}/opt/app"; echo a > "${l1}/opt/app/a"; echo b > "${l1}/opt/app/b"
        cd "${l2}"; mkdir -p data var opt/app; : > data/.wh.secret; : > var/.wh.empty; : > opt/app/.wh..wh..opq; echo c > opt/app/c
        cd "${l3}"; mkdir -p data bin; echo new > data/new-file; : > bin/.wh.dd
        tar -C "${l1}" --xattrs --xattrs-include='*' --numeric-owner -cf "${work}/1.tar" .
        tar -C "${l2}" --numeric-owner --owner=0 --group=0 --no-recursion -cf "${work}/2.tar" data/.wh.secret var/.wh.empty opt/app/.wh..wh..opq opt/app/c
        tar -C "${l3}" --numeric-owner --owner=0 --group=0 --no-recursion -cf "${work}/3.tar" data/new-file bin/.wh.dd
        ${opts.layer1 === "zstd" ? "zstd -q -T0 -c" : "gzip -n -c"} "${work}/1.tar" > "${work}/1.blob"; zstd -q -c "${work}/2.tar" > "${work}/2.blob"; cp "${work}/3.tar" "${work}/3.blob"
        cp -a "${l1}/." "${fin}/"; rm "${fin}/data/secret"; rm -r "${fin}/var/empty" "${fin}/opt/app/a" "${fin}/opt/app/b"; echo c > "${fin}/opt/app/c"
        echo new > "${fin}/data/new-file"; chown 0:0 "${fin}/data/new-file" "${fin}/opt/app/c"; rm "${fin}/bin/dd"
        mkdir -p "${out}/final"; tar -C "${fin}" --xattrs --xattrs-include='*' --numeric-owner -cf - . | lz4 -q -z -c > "${out}/final/img.tar.lz4"
        cd "${out}/final"; sha256sum img.tar.lz4 > img.tar.lz4.sha256`);
    const layout = join(out, "layout");
    mkdirSync(join(layout, "blobs/sha256"), { recursive: true });
    const put = (bytes: Uint8Array): { digest: string; size: number } => {
      const hex = sha(bytes);
      writeFileSync(join(layout, "blobs/sha256", hex), bytes);
      return { digest: `sha256:${hex}`, size: bytes.byteLength };
    };
    const media = [`application/vnd.oci.image.layer.v1.tar+${opts.layer1 ?? "gzip"}`, "application/vnd.oci.image.layer.v1.tar+zstd", "application/vnd.oci.image.layer.v1.tar"];
    const layers = [1, 2, 3].map((n, i) => ({ mediaType: media[i] as string, ...put(readFileSync(join(work, `${n}.blob`))) }));
    const diffIds = [1, 2, 3].map((n) => `sha256:${sha(readFileSync(join(work, `${n}.tar`)))}`);
    const manifestFor = (architecture: string) => {
      // Env and Labels the agent must not act on.
      const config = put(
        new TextEncoder().encode(
          JSON.stringify({
            architecture,
            os: "linux",
            config: { Env: ["PATH=/must/not/matter"], Labels: { "org.example.ignored": "yes" } },
            rootfs: { type: "layers", diff_ids: diffIds },
          }),
        ),
      );
      const m = { schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config }, layers };
      return { mediaType: m.mediaType, ...put(new TextEncoder().encode(JSON.stringify(m))), platform: { os: "linux", architecture } };
    };
    const arm = manifestFor("arm64");
    const amd = manifestFor("amd64");
    const index = put(new TextEncoder().encode(JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: [arm, amd] })));
    const tag = "12";
    writeFileSync(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    writeFileSync(
      join(layout, "index.json"),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [{ mediaType: "application/vnd.oci.image.index.v1+json", ...index, annotations: { "org.opencontainers.image.ref.name": tag } }],
      }),
    );
    return { layout, tag, finalDir: join(out, "final"), layers, manifest: amd.digest };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
