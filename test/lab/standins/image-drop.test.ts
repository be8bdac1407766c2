/**
 * The image cache dropping its connections (lab/standins/image-drop.ts, image-server.ts):
 * inside the window each image connection is closed after `afterBytes` of its body, a
 * TCP close with the body short of its Content-Length (status 200 or 206, never an HTTP
 * error); outside it the image is served whole; Range is honoured (206 + Content-Range);
 * the window counts GETs, Range requests, GETs from byte 0 and drops per client address.
 * The socket-level checks read the raw TLS stream, so nothing between hides the cut.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:tls";
import { rangeStart } from "../../../lab/standins/image-cache.ts";
import { ImageDropWindow, parseImageDropSpec } from "../../../lab/standins/image-drop.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { loopbackStandins } from "../../helpers/loopback-standins.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

describe("ImageDropWindow", () => {
  test("inside the window a connection may send up to afterBytes, then is cut; outside it nothing is cut", () => {
    let now = 1_000;
    const w = new ImageDropWindow(() => now);
    expect(w.allowance(0, 65_536)).toBeUndefined();
    w.set({ afterBytes: 100_000, ms: 500, delayMs: 200, holdFor: 0 });
    expect(w.allowance(0, 65_536)).toBeUndefined(); // not open yet
    now = 1_200;
    expect(w.allowance(0, 65_536)).toBeUndefined(); // within the allowance
    expect(w.allowance(65_536, 65_536)).toBe(100_000 - 65_536);
    expect(w.allowance(150_000, 65_536)).toBe(0); // already past it: closed at its next chunk
    expect(w.report()).toMatchObject({ startsAt: 1_200, endsAt: 1_700, active: true });
    now = 1_700;
    expect(w.allowance(150_000, 65_536)).toBeUndefined();
    expect(w.report().active).toBe(false);
  });

  test("with holdFor 3 the first two GETs wait; the third opens the window and lets them go", async () => {
    let now = 0;
    const w = new ImageDropWindow(() => now);
    w.set({ afterBytes: 10, ms: 1_000, delayMs: 0, holdFor: 3 });
    now = 5_000;
    const gone: string[] = [];
    const a = w.request("fd00::a", false).then(() => gone.push("a"));
    const b = w.request("fd00::b", false).then(() => gone.push("b"));
    await Bun.sleep(0);
    expect(gone).toEqual([]);
    expect(w.allowance(0, 100)).toBeUndefined();
    expect(w.report()).toMatchObject({ startsAt: null, endsAt: null, active: false, gets: 2 });
    now = 5_100;
    await w.request("fd00::c", false);
    await Promise.all([a, b]);
    expect(gone.sort()).toEqual(["a", "b"]);
    expect(w.allowance(0, 100)).toBe(10);
    expect(w.report()).toMatchObject({ startsAt: 5_100, endsAt: 6_100, active: true });
    // A later GET is answered at once and does not move the window.
    now = 5_500;
    await w.request("fd00::d", true);
    expect(w.report()).toMatchObject({ startsAt: 5_100, gets: 4 });
  });

  test("open() ends a hold early (the server's bound): the held GETs go and the window starts then", async () => {
    let now = 0;
    const w = new ImageDropWindow(() => now);
    w.set({ afterBytes: 10, ms: 1_000, delayMs: 0, holdFor: 8 });
    const a = w.request("fd00::a", false);
    now = 30_000;
    w.open();
    await a;
    expect(w.report()).toMatchObject({ startsAt: 30_000, active: true, gets: 1 });
  });

  test("counts GETs, Range requests, GETs from byte 0 and drops, in all and per client address; a new window starts from zero", () => {
    const w = new ImageDropWindow(() => 0);
    w.request("fd00::1", false); // before any window: not counted
    w.set({ afterBytes: 1, ms: 10, delayMs: 0, holdFor: 0 });
    w.request("fd00::a", false);
    w.dropped("fd00::a");
    w.request("fd00::a", true);
    w.request("fd00::b", false);
    expect(w.report()).toMatchObject({
      gets: 3,
      ranges: 1,
      fromZero: 2,
      dropped: 1,
      bySource: { "fd00::a": { gets: 2, ranges: 1, fromZero: 1, dropped: 1 }, "fd00::b": { gets: 1, ranges: 0, fromZero: 1, dropped: 0 } },
    });
    w.set({ afterBytes: 1, ms: 10, delayMs: 0, holdFor: 0 });
    expect(w.report()).toMatchObject({ gets: 0, dropped: 0, bySource: {} });
  });
});

describe("parseImageDropSpec", () => {
  test("takes {afterBytes, ms, delayMs?} and names what is wrong otherwise", () => {
    expect(parseImageDropSpec({ afterBytes: 262_144, ms: 3_000 })).toEqual({ afterBytes: 262_144, ms: 3_000, delayMs: 0, holdFor: 0 });
    expect(parseImageDropSpec({ afterBytes: 1, ms: 0, delayMs: 50 })).toEqual({ afterBytes: 1, ms: 0, delayMs: 50, holdFor: 0 });
    expect(parseImageDropSpec({ afterBytes: 1, ms: 0, holdFor: 8 })).toEqual({ afterBytes: 1, ms: 0, delayMs: 0, holdFor: 8 });
    expect(parseImageDropSpec({ afterBytes: 1, ms: 0, holdFor: 1.5 })).toEqual({
      error: "expected {afterBytes, ms, delayMs?, holdFor?}: holdFor an integer 0..10000 (the window opens at that image GET, the ones before wait for it), got 1.5",
    });
    expect(parseImageDropSpec({ afterBytes: 0, ms: 10 })).toEqual({
      error: "expected {afterBytes, ms, delayMs?, holdFor?}: afterBytes an integer 1..1073741824 (each connection's body is cut after that many bytes), got 0",
    });
    expect(parseImageDropSpec({ afterBytes: 10, ms: "5" })).toEqual({ error: 'expected {afterBytes, ms, delayMs?, holdFor?}: ms an integer 0..600000, got "5"' });
    expect(parseImageDropSpec({ afterBytes: 10, ms: 5, delayMs: -1 })).toEqual({ error: "expected {afterBytes, ms, delayMs?, holdFor?}: delayMs an integer 0..600000, got -1" });
    expect(parseImageDropSpec(undefined)).toMatchObject({ error: expect.stringContaining("afterBytes an integer") });
  });
});

describe("rangeStart", () => {
  test("bytes=N- is N; none or another form is the whole image; N past the end is unsatisfiable", () => {
    expect(rangeStart("bytes=100-", 1_000)).toBe(100);
    expect(rangeStart("bytes=0-", 1_000)).toBe(0);
    expect(rangeStart(null, 1_000)).toBeUndefined();
    expect(rangeStart("bytes=0-99", 1_000)).toBeUndefined();
    expect(rangeStart("bytes=1000-", 1_000)).toBe("unsatisfiable");
  });
});

const openssl = Bun.spawnSync(["openssl", "version"], { stdout: "pipe", stderr: "pipe" }).exitCode === 0 ? undefined : "openssl";
const ok = prerequisites("the image cache stand-in's drop window over HTTPS", [openssl]);
const box = loopbackStandins("mh-imgdrop-", ok);

/** One GET over a raw TLS connection: the status line, headers, the body bytes that came, and whether the server closed the connection. */
async function rawGet(path: string, range?: string): Promise<{ status: number; headers: Record<string, string>; body: number; closedByServer: boolean }> {
  const url = new URL(box.st.urls.images);
  const chunks: Buffer[] = [];
  const closedByServer = await new Promise<boolean>((resolve, reject) => {
    const s = connect({ host: "::1", port: Number(url.port), ca: box.st.bootCa.pem }, () => {
      s.write(`GET /${path} HTTP/1.1\r\nHost: [::1]:${url.port}\r\n${range ? `Range: ${range}\r\n` : ""}\r\n`);
    });
    const timer = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, 10_000);
    s.on("data", (c: Buffer) => {
      chunks.push(c);
      // The whole answer arrived and the connection stays open (keep-alive): not closed by the server.
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      const len = /content-length: (\d+)/i.exec(all.subarray(0, end).toString())?.[1];
      if (end > 0 && len !== undefined && all.length - end - 4 >= Number(len)) {
        clearTimeout(timer);
        s.destroy();
        resolve(false);
      }
    });
    s.on("error", (e) => (chunks.length ? undefined : reject(e)));
    s.on("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  const all = Buffer.concat(chunks);
  const end = all.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = all.subarray(0, end).toString().split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine.split(" ")[1]), headers, body: all.length - end - 4, closedByServer };
}

describe.if(ok)("the image cache stand-in dropping its connections", () => {
  const control = async (body?: unknown) => {
    const r = await fetch(`${box.st.urls.api}/_standin/image-drop`, {
      ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
      tls: { ca: box.st.apiCa.pem },
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };

  test("inside the window each image connection is closed after afterBytes of a 200 or 206 body; after it the image comes whole", async () => {
    const size = box.st.image.byteLength;
    const after = 100_000;
    expect(await control({ afterBytes: after, ms: 1_500 })).toMatchObject({ status: 200, json: { afterBytes: after, ms: 1_500, active: true, gets: 0 } });
    const first = await rawGet(box.st.imagePath);
    expect(first).toMatchObject({ status: 200, body: after, closedByServer: true });
    expect(first.headers["content-length"]).toBe(String(size));
    const resumed = await rawGet(box.st.imagePath, `bytes=${after}-`);
    expect(resumed).toMatchObject({ status: 206, body: after, closedByServer: true });
    expect(resumed.headers["content-range"]).toBe(`bytes ${after}-${size - 1}/${size}`);
    expect(resumed.headers["content-length"]).toBe(String(size - after));
    // The sidecars are never cut.
    expect(await rawGet(`${box.st.imagePath}.sha256`)).toMatchObject({ status: 200, closedByServer: false });
    await waitFor(async () => (await control()).json.active === false, 10_000, "the drop window to close", 50);
    expect(await rawGet(box.st.imagePath, `bytes=${after}-`)).toMatchObject({ status: 206, body: size - after, closedByServer: false });
    expect((await control()).json).toMatchObject({ gets: 3, ranges: 2, fromZero: 1, dropped: 2, bySource: { "::1": { gets: 3, ranges: 2, fromZero: 1, dropped: 2 } } });
  });

  test("a Range past the end is answered 416; a bad spec is refused with 400 naming what was expected", async () => {
    expect(await rawGet(box.st.imagePath, `bytes=${box.st.image.byteLength}-`)).toMatchObject({ status: 416 });
    expect(await control({ afterBytes: 10 })).toEqual({
      status: 400,
      json: { error: "/_standin/image-drop: expected {afterBytes, ms, delayMs?, holdFor?}: ms an integer 0..600000, got undefined" },
    });
  });
});
