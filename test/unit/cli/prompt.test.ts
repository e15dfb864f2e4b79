import { describe, expect, it } from "vitest";
import { confirm } from "../../../src/cli/prompt.js";

describe("cli > confirmation", () => {
  it("--yes confirms without asking", async () => {
    expect(await confirm("Delete basin svc://x?", true)).toBe("yes");
  });

  it("refuses (usage error) when there is no terminal to ask", async () => {
    const stdin = process.stdin.isTTY;
    Object.defineProperty(process.stdin, "isTTY", { value: undefined, configurable: true });
    try {
      await expect(confirm("Delete basin svc://x?", false)).rejects.toMatchObject({
        code: "usage",
        message: "Delete basin svc://x: refusing without --yes (no terminal to ask)",
      });
    } finally {
      Object.defineProperty(process.stdin, "isTTY", { value: stdin, configurable: true });
    }
  });
});
