/**
 * Bug: svc takes S2's `-f TOKEN` for the fencing token on `append`, `fence` and `trim`
 * (cli/s2-spellings.ts), but it took the command to be the first word that was no flag: after a
 * global flag with a value, `svc --timeout 10s fence URI NEW -f OLD` made `10s` the command, so
 * `-f` reached fence as typed and was refused ("unknown option '-f'", exit 2) where the same line without `--timeout`
 * fenced the stream.
 *
 * Now the values of the global flags before the command are stepped over.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

it("S2's -f after a global flag's value is the fencing token, as without it", async () => {
  const uri = await d.newStream("fenced");
  expect((await d.svc(["fence", uri, "token-v1"])).code).toBe(0);
  const v2 = await d.svc(["--timeout", "10s", "fence", uri, "token-v2", "-f", "token-v1"]);
  expect(v2.code, v2.stderr).toBe(0);
  const v3 = await d.svc(["--retries", "2", "--timeout=10s", "trim", uri, "1", "-f", "token-v2", "--yes"]);
  expect(v3.code, v3.stderr).toBe(0);
  const wrong = await d.svc(["--compression", "none", "fence", uri, "token-v4", "-f", "wrong-token"]);
  expect(wrong.code, wrong.stderr).toBe(5); // the token was judged, and it is not the stream's
});
