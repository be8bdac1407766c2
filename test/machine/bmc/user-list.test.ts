/** `ipmitool user list` as ipmitool 1.8.19 prints it (lib/ipmi_user.c dump_user_brief). */
import { expect, test } from "bun:test";
import { parseUserList } from "../../../src/machine/bmc/user-list.ts";

test("ids with names; an id without a name is left out; the header is not a user", () => {
  const text = [
    "ID  Name\t     Callin  Link Auth\tIPMI Msg   Channel Priv Limit",
    "1                    true    false      false      Unknown (0x00)",
    "2   ADMIN            false   false      true       ADMINISTRATOR",
    "10  metal            true    true       true       ADMINISTRATOR",
    "",
  ].join("\n");
  expect([...parseUserList(text)]).toEqual([
    [2, "ADMIN"],
    [10, "metal"],
  ]);
  expect(parseUserList("")).toEqual(new Map());
});
