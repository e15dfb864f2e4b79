import { describe, expect, it } from "vitest";
import { parseToml, stringifyToml, TomlError } from "../../../src/cli/toml.js";

describe("cli > toml subset", () => {
  it("parses top-level keys, tables and profile tables", () => {
    const t = parseToml(`# comment
account_endpoint = "http://127.0.0.1:4243" # trailing
retries = 3
insecure = false
ratio = 1.5
[profiles.staging]
basin_endpoint = 'https://{basin}.b.example'
[profiles."with space"]
timeout = "5s"
`);
    expect(t).toEqual({
      account_endpoint: "http://127.0.0.1:4243",
      retries: 3,
      insecure: false,
      ratio: 1.5,
      profiles: { staging: { basin_endpoint: "https://{basin}.b.example" }, "with space": { timeout: "5s" } },
    });
  });

  it("handles escapes and # inside strings", () => {
    expect(parseToml(String.raw`a = "x # y \"q\" \\ \n \u00e9"`)).toEqual({ a: 'x # y "q" \\ \n é' });
  });

  it.each([
    ["a = ", "missing value"],
    ["a = [1, 2]", "unsupported value"],
    ['a = "open', "unterminated string"],
    ["just words", "expected key = value"],
    ["[[arr]]", "invalid table header"],
    ["a = 1\na = 2", "duplicate key"],
    ["bad key = 1", "invalid key"],
    ["a = 99999999999999999999", "out of range"],
  ])("rejects %j with a line number", (text, msg) => {
    let err: unknown;
    try {
      parseToml(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TomlError);
    expect((err as Error).message).toMatch(/^line \d+: /);
    expect((err as Error).message).toContain(msg);
  });

  it("round-trips what it writes", () => {
    const table = {
      access_token: 's3cr"et\n',
      retries: 2,
      insecure: true,
      profiles: { a: { account_endpoint: "http://x" }, "b c": { retries: 0 } },
    };
    const text = stringifyToml(table);
    expect(text).toMatch(/^access_token = /);
    expect(text).toContain("[profiles.a]");
    expect(text).toContain('[profiles."b c"]');
    expect(parseToml(text)).toEqual(table);
  });

  it("writes an empty table as nothing", () => {
    expect(stringifyToml({})).toBe("");
  });
});
