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

/** A fresh CA in `dir` (EC P-256, valid 2 days). */
export function makeCa(dir: string, name: string): Ca {
  mkdirSync(dir, { recursive: true });
  openssl(
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`, "-days", "2", "-subj", `/CN=${name}`],
    dir,
  );
  return { dir, certFile: join(dir, `${name}.pem`), keyFile: join(dir, `${name}.key`), pem: readFileSync(join(dir, `${name}.pem`), "utf8") };
}

/** A server certificate signed by `ca` for the given IP addresses and DNS names. */
export function makeServerCert(ca: Ca, name: string, ips: readonly string[], dnsNames: readonly string[]): ServerCert {
  const dir = ca.dir;
  const san = [...ips.map((i) => `IP:${i}`), ...dnsNames.map((d) => `DNS:${d}`)].join(",");
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${dnsNames[0] ?? name}`], dir);
  openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`], dir);
  return { cert: readFileSync(join(dir, `${name}.pem`), "utf8"), key: readFileSync(join(dir, `${name}.key`), "utf8") };
}
