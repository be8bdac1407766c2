/**
 * Run inside a namespace by overrun.test.ts: an event socket with a tiny receive
 * buffer, then a burst of link changes; prints what the EventSource delivered.
 */
import { EventSource } from "../../../src/netlink/event-source.ts";
import * as K from "../../../src/netlink/constants.ts";

let overruns = 0;
let links = 0;
let failed: string | undefined;
// rcvbuf 1: the kernel rounds this up to its minimum (a few KiB)
const src = EventSource.subscribe({ groups: [K.RTNLGRP_LINK, K.RTNLGRP_IPV6_IFADDR, K.RTNLGRP_IPV6_ROUTE], rcvbuf: 1 });
const reading = (async () => {
  try {
    for await (const e of src) {
      if (e.kind === "overrun") overruns++;
      else links += e.bodies.filter((b) => b.kind === "link").length;
    }
  } catch (e) {
    failed = (e as Error).message;
  }
})();
const batch = Array.from({ length: 150 }, (_, i) => `link add mhnov${i} type veth peer name mhnow${i}`).join("\n") + "\n";
const p = Bun.spawn(["ip", "-batch", "-"], { stdin: new TextEncoder().encode(batch), stdout: "ignore", stderr: "inherit" });
await p.exited;
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
console.log(JSON.stringify({ overruns, links, after: links - before, failed: failed ?? null }));
process.exit(0);
