/**
 * A presigned image URL (S3 SigV4, with userinfo too) never reaches a log line: not in
 * provision.allocation's summary or document, not in a message, a field or an error
 * text, whatever logged it (issue 29: on main the allocation line showed it in clear).
 */
import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { MachineAllocationSchema } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { createLogger, logEvent } from "../../../src/platform/log/logger.ts";
import { redactUrl, scrubUrls, SecretSet } from "../../../src/platform/log/redact.ts";
import { redactAllocation, summarizeAllocation } from "../../../src/agent/allocation.ts";

const SIG = "4f1c0ab9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0";
const CRED = "AKIAIOSFODNN7EXAMPLE%2F20261201%2Feu-central-1%2Fs3%2Faws4_request";
const PRESIGNED = `https://images.example.com/metal-os/debian/12/img.tar.lz4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CRED}&X-Amz-Date=20261201T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIG}`;
const WITH_USER = "https://deploy:hunter2-pass@images.example.com/img.tar.lz4";

function capture() {
  const lines: string[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(l), secrets: new SecretSet() });
  return { log, lines };
}

describe("presigned URLs in logs", () => {
  test("provision.allocation: summary and document carry the URL without signature, credential or userinfo", () => {
    const a = create(MachineAllocationSchema, { hostname: "web-1", image: { id: "debian-12", url: PRESIGNED } });
    const { log, lines } = capture();
    logEvent(log, "provision.allocation", { ...summarizeAllocation(a), allocation: redactAllocation(a) }, "allocated");
    const text = lines.join("");
    expect(text).not.toContain(SIG);
    expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(text).toContain("images.example.com/metal-os/debian/12/img.tar.lz4");
    expect(text).toContain("X-Amz-Expires=3600");
    const u = create(MachineAllocationSchema, { image: { url: WITH_USER } });
    expect(JSON.stringify(summarizeAllocation(u))).not.toContain("hunter2-pass");
    expect(JSON.stringify(redactAllocation(u))).not.toContain("hunter2-pass");
  });

  test("a URL in any message, field or error text of a log line is scrubbed (json and text)", () => {
    for (const format of ["json", "text"] as const) {
      const lines: string[] = [];
      const log = createLogger({ level: "debug", format, write: (l) => void lines.push(l), secrets: new SecretSet() });
      logEvent(log, "install.image.start", { url: PRESIGNED, nested: { href: WITH_USER } }, `image: streaming ${PRESIGNED} from ${WITH_USER}`);
      logEvent(log, "install.image.retry", { error: new Error(`GET ${PRESIGNED} failed`) }, "failed", "error");
      const text = lines.join("");
      expect(text).not.toContain(SIG);
      expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
      expect(text).not.toContain("hunter2-pass");
      expect(text).toContain("images.example.com");
    }
  });

  test("redactUrl drops the signature-like parameters of S3, GCS, Azure and CloudFront, keeps the others", () => {
    const r = redactUrl("https://x.example/a?X-Goog-Signature=g1&X-Goog-Credential=g2&sig=az&se=2026&Signature=cf&Key-Pair-Id=k&Policy=p&token=t&AWSAccessKeyId=a&v=1");
    for (const v of ["g1", "g2", "=az", "=cf", "=k&", "=p&", "=t&", "=a&"]) expect(r).not.toContain(v);
    expect(r).toContain("se=2026");
    expect(r).toContain("v=1");
    expect(scrubUrls("plain https://x.example/a?v=1 text")).toBe("plain https://x.example/a?v=1 text");
  });
});
