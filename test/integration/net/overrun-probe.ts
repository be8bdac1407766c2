/**
 * Run inside a namespace by overrun.test.ts: a burst of link changes; prints what
 * the EventSource delivered.
 *   kernel (default): an event socket with a tiny receive buffer: the kernel drops (ENOBUFS).
 *   queue: a normal receive buffer but a 4 KiB queue cap, and nobody reads until the
 *          burst is over: the EventSource drops and says "overrun" (a consumer slower
 *          than the event rate costs bounded memory).
 */
import { EventSource } from "../../../src/network/netlink/event-source.ts";
import * as K from "../../../src/network/netlink/constants.ts";

const mode = process.argv[2] ?? "kernel";
const QUEUE_CAP = 4096;
let overruns = 0;
let links = 0;
let failed: string | undefined;
let maxPending = 0;
const groups = [K.RTNLGRP_LINK, K.RTNLGRP_IPV6_IFADDR, K.RTNLGRP_IPV6_ROUTE];
// rcvbuf 1: the kernel rounds this up to its minimum (a few KiB)
const src = mode === "queue" ? EventSource.subscribe({ groups, queueCapBytes: QUEUE_CAP }) : EventSource.subscribe({ groups, rcvbuf: 1 });
const read = async () => {
  try {
    for await (const e of src) {
      if (e.kind === "overrun") overruns++;
      else links += e.bodies.filter((b) => b.kind === "link").length;
    }
  } catch (e) {
    failed = (e as Error).message;
  }
};
let reading = mode === "queue" ? undefined : read();
const batch = Array.from({ length: 150 }, (_, i) => `link add mhnov${i} type veth peer name mhnow${i}`).join("\n") + "\n";
const p = Bun.spawn(["ip", "-batch", "-"], { stdin: new TextEncoder().encode(batch), stdout: "ignore", stderr: "inherit" });
await p.exited;
if (mode === "queue") {
  // Until the Worker has handed over the whole burst (the queue stops changing), nobody reads.
  const settle = performance.now() + 3000;
  let last = -1;
  while (performance.now() < settle) {
    await new Promise((r) => setTimeout(r, 100));
    maxPending = Math.max(maxPending, src.pendingBytes);
    if (src.pendingBytes === last && last > 0) break;
    last = src.pendingBytes;
  }
  reading = read();
}
// The reader must see the end of the burst before the single event below counts.
const settle = performance.now() + 3000;
let seen = -1;
while (seen !== links && performance.now() < settle) {
  seen = links;
  await new Promise((r) => setTimeout(r, 200));
}
const before = links;
// After the burst, single events must still arrive.
Bun.spawnSync(["ip", "link", "set", "mhnov0", "up"]);
const end = performance.now() + 3000;
while (links === before && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
await src.stop();
await reading;
console.log(JSON.stringify({ overruns, links, after: links - before, failed: failed ?? null, maxPending, cap: QUEUE_CAP }));
