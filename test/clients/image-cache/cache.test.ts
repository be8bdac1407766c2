import { describe, expect, test } from "bun:test";
import { cacheUrlFor, downloadUrl } from "../../../src/clients/image-cache/cache.ts";

describe("image cache URL mapping", () => {
  test("the image URL's path goes under the cache base (its own path kept as a prefix), query dropped", () => {
    expect(cacheUrlFor(new URL("https://cache.example/"), "https://images.metal-stack.io/metal-os/stable/debian/12/img.tar.lz4").href).toBe(
      "https://cache.example/metal-os/stable/debian/12/img.tar.lz4",
    );
    expect(cacheUrlFor(new URL("https://[fd00::5]:8443/images/"), "https://images.example/debian/12/img.tar.lz4?x=1").href).toBe(
      "https://[fd00::5]:8443/images/debian/12/img.tar.lz4",
    );
  });

  test("without a cache the image comes from its own URL; a relative image URL is refused naming it", () => {
    expect(downloadUrl(undefined, "https://images.example/a/img.tar.lz4").href).toBe("https://images.example/a/img.tar.lz4");
    expect(() => cacheUrlFor(new URL("https://cache.example/"), "debian/12/img.tar.lz4")).toThrow('image URL "debian/12/img.tar.lz4": expected an absolute URL');
  });
});

describe("reach --image PATH", () => {
  test("a path goes under the cache base whatever its slashes", async () => {
    const { cachePath } = await import("../../../src/clients/image-cache/cache.ts");
    expect(cachePath(new URL("https://cache.example/images"), "/debian/12/img.tar.lz4").href).toBe("https://cache.example/images/debian/12/img.tar.lz4");
    expect(cachePath(new URL("https://cache.example/"), "debian/12/img.tar.lz4").href).toBe("https://cache.example/debian/12/img.tar.lz4");
  });
});
