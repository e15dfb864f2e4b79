/**
 * Bug (user trial): `svc --help` listed `fence <uri> <token>` and `trim <uri> <seq>`, while the
 * commands' own help said `fence <uri> [new-token]` and `trim <uri> [seq-num]`: the top-level
 * list comes from light stubs in commands/index.ts (so `svc --help` loads no command module),
 * written by hand apart from the commands.
 *
 * Expected: each command's line in `svc --help` names the arguments its own usage line names.
 */
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands/index.js";
import { runSvc } from "../helpers/cli.js";

describe("svc --help's command list", () => {
  it("names each command's arguments as its own help does", async () => {
    const top = (await runSvc(["--help"])).stdout;
    for (const e of COMMANDS.filter((c) => !c.hidden && c.name !== "lite")) {
      const own = await e.load();
      const args = own.registeredArguments
        .map((a) =>
          a.required ? `<${a.name()}${a.variadic ? "..." : ""}>` : `[${a.name()}${a.variadic ? "..." : ""}]`,
        )
        .join(" ");
      expect([e.name, e.args ?? ""]).toEqual([e.name, args]);
      if (args !== "") expect(top).toMatch(new RegExp(`^  ${e.name} ${args.replace(/[[\].]/g, "\\$&")}`, "m"));
    }
  });
});
