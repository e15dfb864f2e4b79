/**
 * Runs around every test file (vitest setupFiles): tests leave nothing in the temp dir, so the
 * temp homes that CLI tests make are removed once the file is done.
 */
import { afterAll } from "vitest";
import { removeTempHomes } from "./helpers/cli.js";
import { removeScratchDirs } from "./helpers/scratch.js";

afterAll(() => {
  removeTempHomes();
  removeScratchDirs();
});
