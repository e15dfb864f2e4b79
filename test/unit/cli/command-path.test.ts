/** The command an argv names, found in the command tree: never an argument, never an option's value. */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commandPath } from "../../../src/cli/command-path.js";

function program(): Command {
  const root = new Command("svc").option("--timeout <dur>").option("--json");
  const basin = new Command("basin");
  basin.addCommand(new Command("create").argument("<basin>").option("--storage-class <c>"));
  basin.addCommand(new Command("list").alias("ls"));
  root.addCommand(basin);
  root.addCommand(new Command("diff").argument("<left>").argument("[right]"));
  return root;
}

describe("cli > commandPath", () => {
  it.each([
    [["diff", "my-basin-01"], "svc diff"],
    [["--timeout", "basin", "diff"], "svc diff"],
    [["--timeout=5s", "basin", "create", "Bad_Name", "--storage-class", "express"], "svc basin create"],
    [["basin", "create", "--storage-class", "list", "x"], "svc basin create"],
    [["basin", "ls", "--json"], "svc basin list"],
    [["basin", "lsit"], "svc basin"],
    [["help", "basin", "create"], "svc basin create"],
    [[], "svc"],
  ])("%j → %s", (argv, path) => {
    expect(commandPath(program(), argv)).toBe(path);
  });
});
