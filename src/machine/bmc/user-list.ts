/**
 * `ipmitool user list <channel>`: the user ids and their names (ipmitool/ipmitool@19d78782
 * lib/ipmi_user.c dump_user_brief: a header line, then per id `ID  Name  Callin  Link Auth
 * IPMI Msg  Channel Priv Limit`, an empty name left blank). Pure.
 */

/** Id -> name for every listed user with a name. */
export function parseUserList(text: string): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of text.split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(?:true|false)\b/.exec(line);
    if (m && !/^(true|false)$/.test(m[2] ?? "")) users.set(Number(m[1]), m[2] ?? "");
  }
  return users;
}
