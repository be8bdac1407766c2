/**
 * A server certificate for ::1 with explicit validity dates (expired, or not yet
 * valid), signed by a test CA: `openssl ca -startdate -enddate`, since `openssl x509
 * -days` cannot set a start in the past or the future. The first call in a directory
 * makes the CA (EC P-256, self-signed, two days) and the server's key; each call signs
 * one certificate into its own file, with the same key.
 *
 *   const c = datedCert(dir, "expired.pem", "20200101000000Z", "20200102000000Z");
 *   Bun.serve({ tls: { cert: c.cert, key: c.key }, ... }); // trusted through c.caFile
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DatedCert {
  /** The test CA's certificate (the client's CA bundle). */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate and key as PEM text (Bun.serve's tls). */
  readonly cert: string;
  readonly key: string;
}

const CA_CNF = [
  "[ca]",
  "default_ca=c",
  "[c]",
  "database=index.txt",
  "serial=serial",
  "new_certs_dir=.",
  "default_md=sha256",
  "policy=p",
  // Several certificates for the one server key and subject.
  "unique_subject=no",
  "[p]",
  "commonName=supplied",
  "[ext]",
  "subjectAltName=IP:::1",
  "basicConstraints=CA:FALSE",
  "",
].join("\n");

function openssl(dir: string, args: readonly string[]): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr.toString().trim()}`);
}

/** The CA, the server key and request, and the `openssl ca` database in `dir`, once. */
function caIn(dir: string): void {
  if (existsSync(join(dir, "ca.cnf"))) return;
  openssl(dir, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=test-ca"]);
  openssl(dir, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "s.key", "-out", "s.csr", "-subj", "/CN=test-server"]);
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "serial"), "01\n");
  writeFileSync(join(dir, "ca.cnf"), CA_CNF);
}

/** A certificate for ::1 valid from `startdate` to `enddate` (openssl's YYYYMMDDHHMMSSZ), written to `dir/file`. */
export function datedCert(dir: string, file: string, startdate: string, enddate: string): DatedCert {
  caIn(dir);
  openssl(dir, [
    "ca",
    "-batch",
    "-config",
    "ca.cnf",
    "-cert",
    "ca.pem",
    "-keyfile",
    "ca.key",
    "-in",
    "s.csr",
    "-out",
    file,
    "-startdate",
    startdate,
    "-enddate",
    enddate,
    "-extensions",
    "ext",
  ]);
  const certFile = join(dir, file);
  const keyFile = join(dir, "s.key");
  return { caFile: join(dir, "ca.pem"), certFile, keyFile, cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
}
