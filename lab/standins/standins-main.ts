/**
 * The stand-ins as one process, for `make lab` (run inside the lab's namespace):
 *
 *   bun lab/standins/standins-main.ts --listen [fd00::1]:8443 --state-dir DIR \
 *     [--api [addr]:port] [--images [addr]:port] [--name boot.lab] [--advertise-name [ROLE=]boot.lab]... \
 *     [--machine UUID[,PARTITION]]... [--dns [addr]:53] [--allocate-after MS] [--ntp-server ADDR]...
 *
 * --listen is metal-boot; the apiserver and image cache default to the same address
 * on the next two ports. --dns also answers AAAA queries for every --name with the
 * metal-boot address (point the RA's RDNSS there). The apiserver's Wait streams nothing until
 * `POST <api>/_standin/allocate {"uuid": ..., "allocation": {...}}` (docs/apiserver.md lists the
 * control endpoints), or, with --allocate-after, MS after the machine registers.
 * --image-trickle BYTES: the first GET of the image gets BYTES, then a trickle that never ends
 * (image-cache.ts: a power loss lands mid-stream); later GETs get the whole image.
 * --super-user-password-file FILE: BootService/SuperUserPassword hands out its content (else feature_disabled).
 * --no-switch-rule drops the two-switch rule of Register (the only deviation from the
 * real server; for a lab whose NICs see no LLDP peers). --switches FILE is the switch table
 * (lab/standins/switches.ts): Register connects the machine to its ports as the apiserver
 * does and DIR/connections.json names them. The apiserver checks requests with the
 * upstream protos' rules (validation.ts, compiled once into build/upstream-protos/); without the
 * reference it says so in one line on stderr and uses the project's own (under CI=true: exits).
 * metal-boot sends each machine's boot event when it serves its config (boot-event.ts), and the
 * operator allocates only a machine that is Alive (liveliness.ts); DIR/liveliness.json has the
 * events and every allocation try. Writes DIR/standins.json (URLs, CA files, pid), logs every request as a JSON line to
 * DIR/requests.jsonl, prints one "ready" JSON line, and runs until SIGTERM/SIGINT.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startDns } from "./dns.ts";
import type { Listen } from "./node-listen.ts";
import { startStandins } from "./standins.ts";
import { parseSwitchSpecs } from "./switches.ts";

function parseListen(text: string, flag: string): Listen {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d+)$/.exec(text) ?? /^([^:\s]+):(\d+)$/.exec(text);
  if (!m) throw new Error(`${flag} ${JSON.stringify(text)}: expected [ipv6]:port or host:port`);
  return { host: m[1] ?? "", port: Number(m[2]) };
}

const { values } = parseArgs({
  options: {
    listen: { type: "string" },
    api: { type: "string" },
    images: { type: "string" },
    "state-dir": { type: "string" },
    name: { type: "string", multiple: true },
    "advertise-name": { type: "string", multiple: true },
    machine: { type: "string", multiple: true },
    dns: { type: "string" },
    // metal-boot's ntp_servers (the lab's chronyd, lab/standins/ntp.ts).
    "ntp-server": { type: "string", multiple: true },
    "allocate-after": { type: "string" },
    // Lab only, until the lab runs two lldpd peers: Register without the two-switch rule.
    "no-switch-rule": { type: "boolean" },
    // Lab install runs: the cache serves this img.tar.lz4 (make test-image), and the lab's
    // allocation carries a filesystem layout for the VM's disk /dev/vda and this image.
    image: { type: "string" },
    // The first GET of the image: this many bytes, then a trickle that never ends (image-cache.ts).
    "image-trickle": { type: "string" },
    // With --image: the layout has an ESP (the UEFI install, lab/standins/machines.ts LAB_LAYOUT_UEFI).
    esp: { type: "boolean" },
    // BootService/SuperUserPassword's password, read from this file (a secret: never argv); without it feature_disabled.
    "super-user-password-file": { type: "string" },
    // The switch table as metal-core registers it (switches.ts SwitchSpec JSON): Register then
    // connects the machine to ports as the apiserver does, and DIR/connections.json says to which.
    switches: { type: "string" },
    // A JSON file whose members replace the lab allocation's (the real OS: lab/standins/debian-raid1.json).
    allocation: { type: "string" },
    // With --image: the allocation's image is this OCI layout (lab/images/oci-image.ts), pushed into
    // Debian's docker-registry on the listen address (TLS by the boot CA, htpasswd; make lab IMAGE=oci),
    // its credentials handed out as metal-boot's oci_configs.
    "oci-layout": { type: "string" },
  },
});
if (!values.listen || !values["state-dir"]) {
  process.stderr.write(
    "usage: main.ts --listen [addr]:port --state-dir DIR [--api [addr]:port] [--images [addr]:port] [--name NAME] [--advertise-name NAME] [--machine UUID[,PARTITION]]... [--dns [addr]:port] [--allocate-after MS] [--ntp-server ADDR]... [--no-switch-rule] [--switches switches.json] [--super-user-password-file FILE] [--image img.tar.lz4 [--esp] [--allocation FILE] [--image-trickle BYTES]]\n",
  );
  process.exit(2);
}
const boot = parseListen(values.listen, "--listen");

/** --advertise-name NAME (every server's URL) or ROLE=NAME (boot, api, images: that server's). */
function advertise(given: readonly string[]): { advertiseName?: string; advertiseNames?: Partial<Record<"boot" | "api" | "images", string>> } {
  const out: { advertiseName?: string; advertiseNames?: Partial<Record<"boot" | "api" | "images", string>> } = {};
  for (const g of given) {
    const m = /^(boot|api|images)=(.+)$/.exec(g);
    if (m) out.advertiseNames = { ...out.advertiseNames, [m[1] as "boot"]: m[2] as string };
    else out.advertiseName = g;
  }
  return out;
}
const stateDir = values["state-dir"];
const machines = (values.machine ?? ["00000000-0000-0000-0000-0000000000aa"]).map((m) => {
  const [uuid = "", partition = "lab"] = m.split(",");
  return { uuid: uuid.toLowerCase(), partition };
});
const trickle = values["image-trickle"];
if (trickle !== undefined && !/^\d+$/.test(trickle)) throw new Error(`--image-trickle ${JSON.stringify(trickle)}: expected a byte count`);
const s = await startStandins({
  stateDir,
  listen: {
    boot,
    api: values.api ? parseListen(values.api, "--api") : { host: boot.host, port: boot.port === 0 ? 0 : boot.port + 1 },
    images: values.images ? parseListen(values.images, "--images") : { host: boot.host, port: boot.port === 0 ? 0 : boot.port + 2 },
  },
  names: values.name ?? [],
  ...advertise(values["advertise-name"] ?? []),
  machines,
  ntpServers: values["ntp-server"] ?? [],
  logFile: join(stateDir, "requests.jsonl"),
  ...(values.image ? { image: new Uint8Array(readFileSync(values.image)) } : {}),
  ...(trickle !== undefined ? { imageTrickleBytes: Number(trickle) } : {}),
});
if (values.image) s.machines.labInstall = true;
if (values.esp) s.machines.labEsp = true;
if (values.allocation) s.machines.labExtra = JSON.parse(readFileSync(values.allocation, "utf8")) as Record<string, unknown>;
if (values["allocate-after"] !== undefined) {
  const ms = Number(values["allocate-after"]);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`--allocate-after ${JSON.stringify(values["allocate-after"])}: expected milliseconds`);
  s.machines.allocateAfterMs = ms;
}
if (values["no-switch-rule"]) s.machines.switchRule = false;
if (values["super-user-password-file"]) s.machines.superUserPassword = readFileSync(values["super-user-password-file"], "utf8").trim();
if (values.switches) {
  s.machines.switches = parseSwitchSpecs(JSON.parse(readFileSync(values.switches, "utf8")));
  const all: Record<string, readonly { switch: string; port: string }[]> = {};
  s.machines.onConnect = (uuid, connections) => {
    all[uuid] = connections;
    writeFileSync(join(stateDir, "connections.json"), JSON.stringify(all) + "\n");
  };
}
const oci = values["oci-layout"] ? await startLabRegistry(values["oci-layout"]) : undefined;
// The machines' events, liveliness and the operator's allocation tries, for the lab's summary (lab/standins/liveliness-summary.ts).
s.machines.onLiveliness = () =>
  writeFileSync(join(stateDir, "liveliness.json"), JSON.stringify({ events: Object.fromEntries(s.machines.events), allocationTries: s.machines.allocationTries }) + "\n");
const dnsListen = values.dns ? parseListen(values.dns, "--dns") : undefined;
const dns = dnsListen ? await startDns(dnsListen.host, dnsListen.port, new Map((values.name ?? []).map((n) => [n.toLowerCase(), boot.host]))) : undefined;
const info = {
  ready: true,
  pid: process.pid,
  urls: s.urls,
  literalUrls: s.literalUrls,
  dns: dnsListen ? `[${dnsListen.host}]:${dnsListen.port}` : null,
  bootCa: s.bootCa.certFile,
  apiCa: s.apiCa.certFile,
  imagePath: s.imagePath,
  oci: oci?.reference ?? null,
  machines,
};
writeFileSync(join(stateDir, "standins.json"), JSON.stringify(info, null, 2) + "\n");
process.stdout.write(JSON.stringify(info) + "\n");
const stop = async () => {
  await oci?.registry.stop();
  await s.stop();
  await dns?.stop();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

/** The OCI registry of make lab IMAGE=oci: the layout pushed, the allocation and metal-boot pointed at it. */
async function startLabRegistry(layout: string) {
  const { startOciRegistry } = await import("./oci-registry.ts");
  const user = { name: "lab", password: randomBytes(12).toString("hex") };
  const registry = await startOciRegistry(join(stateDir, "oci-registry"), s.bootCa, user, { host: boot.host });
  try {
    registry.push(layout, "12", "metal/testos");
  } catch (e) {
    // not left running without the stand-ins that would stop it
    await registry.stop();
    throw e;
  }
  const reference = `oci://${registry.address}/metal/testos:12`;
  s.machines.labExtra = { ...s.machines.labExtra, image: { id: "testos-oci", url: reference } };
  s.metalBoot.ociConfigs = { [registry.address]: { username: user.name, password: user.password } };
  return { registry, reference };
}
