/**
 * The console password of the metal user, new for every install, as metal-hammer makes
 * it (metal-stack/metal-hammer@ec148e3 pkg/password/password.go:9: `len` crypto-random
 * bytes, standard base64, cut to `len` characters; cmd/root.go:75 uses 16). It is a
 * secret: registered in the SecretSet before anything else sees it, so no log line or
 * error can carry it.
 */
import { randomBytes } from "node:crypto";
import type { SecretSet } from "../platform/log/redact.ts";

export const CONSOLE_PASSWORD_LENGTH = 16;

export function generateConsolePassword(secrets: SecretSet, length = CONSOLE_PASSWORD_LENGTH, random: (n: number) => Uint8Array = randomBytes): string {
  const password = Buffer.from(random(length)).toString("base64").slice(0, length);
  secrets.add(password);
  return password;
}
