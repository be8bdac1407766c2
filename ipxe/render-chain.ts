/**
 * `bun ipxe/render-chain.ts <out.ipxe>`: writes the chain script for `make iso`.
 * Options come from the environment (BOOT_URL, ISO_NIC, ISO_ATTEMPTS,
 * ISO_RETRY_DELAY, ISO_GIVE_UP, ISO_CA), as make passes them. Exit 2 with one line naming
 * the bad option. ISO_CA (with an https BOOT_URL): the installation's CA (PEM, RSA) is
 * written beside the script as `<out without .ipxe>.https-ca.esl`, the EFI signature list
 * to set as the servers' UEFI HTTPS boot CA (TlsCaCertificate), which the ISO's UEFI iPXE
 * trusts (docs/boot-chain.md "iPXE over TLS").
 */
import { isAgentError } from "../src/platform/errors.ts";
import { CHAIN_DEFAULTS, EXPECTED, renderChainScript, usage, type GiveUp } from "./chain-script.ts";
import { firmwareCaList } from "./firmware-ca.ts";

function intOption(name: keyof typeof EXPECTED, s: string | undefined, dflt: number): number {
  if (s === undefined || s === "") return dflt;
  if (!/^[0-9]{1,6}$/.test(s)) throw usage(name, s, EXPECTED[name]);
  return Number(s);
}

const out = process.argv[2];
const env = process.env;
try {
  if (!out) throw new Error("usage: render-chain.ts <out.ipxe>");
  if (!env.BOOT_URL) {
    console.error("BOOT_URL: missing; expected the installation's boot.ipxe URL, e.g. make iso BOOT_URL=http://[2001:db8::b007]/boot.ipxe");
    process.exit(2);
  }
  const { script, warnings } = renderChainScript({
    bootUrl: env.BOOT_URL,
    nic: env.ISO_NIC || CHAIN_DEFAULTS.nic,
    attempts: intOption("ISO_ATTEMPTS", env.ISO_ATTEMPTS, CHAIN_DEFAULTS.attempts),
    delaySeconds: intOption("ISO_RETRY_DELAY", env.ISO_RETRY_DELAY, CHAIN_DEFAULTS.delaySeconds),
    giveUp: (env.ISO_GIVE_UP || CHAIN_DEFAULTS.giveUp) as GiveUp,
    caGiven: Boolean(env.ISO_CA),
  });
  if (env.ISO_CA) {
    const esl = `${out.replace(/\.ipxe$/, "")}.https-ca.esl`;
    await Bun.write(
      esl,
      firmwareCaList(
        env.ISO_CA,
        await Bun.file(env.ISO_CA)
          .text()
          .catch(() => ""),
      ),
    );
    console.error(`${esl}: the installation's CA as the servers' UEFI HTTPS boot CA (TlsCaCertificate): set it in their firmware`);
  }
  for (const w of warnings) console.error(`warning: ${w}`);
  await Bun.write(out, script);
} catch (e) {
  console.error(isAgentError(e) ? e.message : String(e));
  process.exit(2);
}
