/**
 * Runs the installer steps as the agent will, inside the private mount namespace the
 * test gives it (`unshare --mount --propagation private`), so the bind mounts never
 * reach the host's mount table:
 *   bun installer-driver.ts <image URL> <root> <hostname> <timeoutMs> <VPN auth key> [<initramfs root>]
 * With an initramfs root, the os-installer carried there (usr/lib/metal-hammer) is offered.
 * installOs: streams the image from the URL, writes the contract with a fresh console
 * password, runs the installer. stdout: the agent's JSON log lines, then one
 * `RESULT {...}` line (with the password, for the test to search the log for it).
 */
import { readFileSync } from "node:fs";
import { AgentError } from "../../../src/platform/errors.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import { create, fromJson } from "@bufbuild/protobuf";
import { MachineAllocationSchema, MachineNicSchema } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { installOs } from "../../../src/install/install.ts";
import { readCarriedInstaller } from "../../../src/install/carried-installer.ts";
import { createLogger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

const [imageUrl, root, hostname, timeout, vpnAuthKey, initramfsRoot] = process.argv.slice(2) as [string, string, string, string, string, string | undefined];
const secrets = new SecretSet();
const log = createLogger({ level: "info", format: "json", write: (l) => process.stdout.write(l), secrets });
const http = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log });
/** The allocation as the apiserver sends it (protojson) and, decoded, as Wait hands it on. */
const asSent = { hostname, allocationType: "MACHINE_ALLOCATION_TYPE_MACHINE", vpn: { controlPlaneAddress: "https://vpn.example:443", authKey: vpnAuthKey, connected: false } };
let result: Record<string, unknown>;
let password = "";
try {
  const out = await installOs({
    http,
    log,
    secrets,
    imageUrl: new URL(imageUrl),
    root,
    machineId: "00000000-0000-0000-0000-00000000c0de",
    nics: [
      create(MachineNicSchema, {
        mac: "52:54:00:00:00:01",
        name: "eth0",
        identifier: "eth0",
        neighbors: [{ mac: "aa:bb:cc:00:00:01", name: "swp1", identifier: "swp1", hostname: "leaf01" }],
      }),
    ],
    allocation: fromJson(MachineAllocationSchema, asSent),
    allocationAsSent: asSent,
    console: "ttyS0",
    raidEnabled: false,
    rootUuid: "8f3c0000-1111-2222-3333-444455556666",
    installerTimeoutMs: Number(timeout),
    ...(initramfsRoot ? { carried: readCarriedInstaller(initramfsRoot) } : {}),
  });
  password = out.report.consolePassword;
  result = { ok: true, binary: out.installer.binary, choice: out.installer.choice.kind, bootInfo: out.bootInfo, report: { uuid: out.report.uuid }, imageBytes: out.image.bytes };
} catch (e) {
  const err = e as AgentError;
  result = { ok: false, code: err.code, exitCode: err.exitCode, message: secrets.scrub(err.message) };
  // The password was generated (and written) before the installer ran: read it back for the log check.
  try {
    password = (JSON.parse(readFileSync(`${root}/etc/metal/machine-details.yaml`, "utf8")) as { password: string }).password;
  } catch {
    // not written
  }
}
await http.close();
const left = readFileSync("/proc/self/mountinfo", "utf8")
  .split("\n")
  .filter((l) => l.split(" ")[4]?.startsWith(root + "/"));
process.stdout.write(`RESULT ${JSON.stringify({ ...result, mountsLeft: left.length, password })}\n`);
