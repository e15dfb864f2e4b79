/** svc lite's reported version (svc-lite-version on /ping) is the package's and the CLI's. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { VERSION } from "../../../src/cli/version.js";
import { LITE_VERSION } from "../../../src/lite/version.js";

it("lite > version is the package version and the CLI's", () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../../package.json"), "utf8")) as {
    version: string;
  };
  expect(LITE_VERSION).toBe(pkg.version);
  expect(VERSION).toBe(pkg.version);
});
