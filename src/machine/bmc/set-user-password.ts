/**
 * IPMI's Set User Password command (NetFn App 0x06, command 0x47) as one line for
 * `ipmitool exec`: `raw 0x06 0x47 <user id> <operation> <16 password bytes>`, every byte
 * in hex. Pure.
 *
 * Why raw and not `user set password <id> <password>`: the password reaches ipmitool on
 * stdin (never argv), and `exec` reads each line through a shell-like parser that cuts
 * it at the first `#`, drops quotes and what follows a closing one, and turns `~` inside
 * quotes into a blank (ipmitool/ipmitool@19d78782 src/ipmishell.c:426-496, 1.8.19). With
 * ipmi_sim, `Abc#defgh12` was set as `Abc`, and `#Abcdefg1` left `user set password 4`
 * alone, which asked stdin for a password and set an empty one, each reported as set.
 * Hex bytes pass that parser unchanged, whatever the password holds; they are the bytes
 * `user set password` sends for a password of at most 16 (ipmitool/ipmitool@19d78782
 * lib/ipmi_user.c:190-226: user id in bits 5:0, the operation, the password padded with
 * zeros to 16 bytes).
 */

export const NETFN_APP = 0x06;
export const SET_USER_PASSWORD = 0x47;

/** The command's operation (byte 2, bits 1:0); `test` compares with the stored password (IPMI 2.0). */
export const PASSWORD_OPERATION = { disable: 0x00, enable: 0x01, set: 0x02, test: 0x03 } as const;

/** Completion codes of `test`: the stored password differs, or is of the other size (20 bytes). */
export const PASSWORD_TEST_FAILED = 0x80;
export const PASSWORD_TEST_WRONG_SIZE = 0x81;

/** The 16-byte form's password field: at most 16 bytes, padded with zeros. */
const PASSWORD_FIELD = 16;

const hex = (b: number): string => `0x${b.toString(16).padStart(2, "0")}`;

/** The password field as ipmitool raw arguments ("0x41 0x62 ... 0x00"). Throws past 16 bytes (passwordProblem refuses those first). */
export function passwordFieldHex(password: string): string {
  const bytes = new TextEncoder().encode(password);
  if (bytes.length > PASSWORD_FIELD) throw new RangeError(`a password of ${bytes.length} bytes does not fit the 16-byte field`);
  const field = new Uint8Array(PASSWORD_FIELD);
  field.set(bytes);
  return Array.from(field, hex).join(" ");
}

/** The `exec` line that runs `operation` with `password` for user `userId` (1..63). */
export function setUserPasswordLine(userId: number, operation: "set" | "test", password: string): string {
  if (!Number.isInteger(userId) || userId < 1 || userId > 63) throw new RangeError(`BMC user id ${userId}: expected 1..63`);
  return ["raw", hex(NETFN_APP), hex(SET_USER_PASSWORD), hex(userId), hex(PASSWORD_OPERATION[operation]), passwordFieldHex(password)].join(" ");
}

/** The completion code in `ipmitool raw`'s failure line (`... rsp=0x80): ...`, lib/ipmi_raw.c:392-395), undefined when it names none. */
export function rawCompletionCode(text: string): number | undefined {
  const m = /Unable to send RAW command \([^)]*\brsp=0x([0-9a-f]{1,2})\)/i.exec(text);
  return m ? Number.parseInt(m[1] as string, 16) : undefined;
}
