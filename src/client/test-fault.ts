/**
 * A deliberate client bug for checking the reliability checkers (docs/design/reliability.md, "Checking the
 * checkers": a re-send after an indefinite failure). Inert unless BOTH `SVC_CLIENT_TEST_FAULTS=enabled` and
 * `SVC_CLIENT_TEST_FAULT=<name>` are in the environment when an appender is made
 * (`StreamClient.appender`); only test/reliability sets them. The bug itself is a wrapper
 * (faults.ts). The server's own seeded bugs are in src/lite/test-fault.ts.
 *
 *   resend-indefinite  an append session whose connection is lost with inputs in flight sends
 *                      them again on a new connection, as if they had never been written
 *                      (they may already be appended: the checker must see duplicates)
 */
const CLIENT_TEST_FAULTS = ["resend-indefinite"] as const;
export type ClientTestFault = (typeof CLIENT_TEST_FAULTS)[number];

export function clientTestFault(): ClientTestFault | undefined {
  if (process.env.SVC_CLIENT_TEST_FAULTS !== "enabled") return undefined;
  const name = process.env.SVC_CLIENT_TEST_FAULT as ClientTestFault | undefined;
  return name && CLIENT_TEST_FAULTS.includes(name) ? name : undefined;
}
