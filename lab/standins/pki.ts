/**
 * Stand-in PKI: a CA and server certificates made by openssl at test time, with
 * subjectAltNames for the IPv6 addresses and host names the stand-ins answer on.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

export interface Ca {
  readonly dir: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly pem: string;
}

export interface ServerCert {
  readonly cert: string;
  readonly key: string;
}

/**
 * Key types: EC P-256 (default), or RSA 2048 for what iPXE must verify (Debian trixie's
 * iPXE refuses a P-256 chain with "Operation not permitted", 0x410de18f; measured).
 */
export type KeyType = "ec" | "rsa";
const newKey = (k: KeyType): string[] => (k === "rsa" ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]);

/** A fresh CA in `dir` (EC P-256 unless `key` says RSA, valid 2 days). */
export function makeCa(dir: string, name: string, key: KeyType = "ec"): Ca {
  mkdirSync(dir, { recursive: true });
  openssl(["req", "-x509", ...newKey(key), "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`, "-days", "2", "-subj", `/CN=${name}`], dir);
  return { dir, certFile: join(dir, `${name}.pem`), keyFile: join(dir, `${name}.key`), pem: readFileSync(join(dir, `${name}.pem`), "utf8") };
}

/** A server certificate signed by `ca` for the given IP addresses and DNS names. */
export function makeServerCert(ca: Ca, name: string, ips: readonly string[], dnsNames: readonly string[], key: KeyType = "ec"): ServerCert {
  const dir = ca.dir;
  const san = [...ips.map((i) => `IP:${i}`), ...dnsNames.map((d) => `DNS:${d}`)].join(",");
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl(["req", ...newKey(key), "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${dnsNames[0] ?? name}`], dir);
  openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`], dir);
  return { cert: readFileSync(join(dir, `${name}.pem`), "utf8"), key: readFileSync(join(dir, `${name}.key`), "utf8") };
}
