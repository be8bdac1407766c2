import { describe, expect, test } from "bun:test";
import { Command } from "commander";
import { COMMANDS, registrarsFor } from "../../src/cli/commands.ts";
import { captureContext } from "../helpers/capture.ts";

const namesOf = (rs: Awaited<ReturnType<typeof registrarsFor>>) => {
  const program = new Command("metal-hammer");
  const { ctx } = captureContext();
  for (const r of rs) r(program, ctx);
  return program.commands.map((c) => c.name());
};

describe("the lazy command table", () => {
  test("each entry loads the module that registers exactly the command of its name", async () => {
    for (const [name, load] of Object.entries(COMMANDS)) expect(namesOf([await load()])).toEqual([name]);
  });

  test("a command line loads only its own command", async () => {
    expect(namesOf(await registrarsFor(["net", "up", "--interfaces", "eth0"]))).toEqual(["net"]);
    expect(namesOf(await registrarsFor(["run"]))).toEqual(["run"]);
  });

  test("help, no command, an unknown one or an option first load every command, in the table's order", async () => {
    for (const args of [[], ["--help"], ["nope"], ["toString"], ["-x", "net"]]) expect(namesOf(await registrarsFor(args))).toEqual(Object.keys(COMMANDS));
  });
});
