/**
 * A deliberate client bug for checking the reliability checkers (docs/design/reliability.md, "Checking the
 * checkers": a re-send after an indefinite failure). Inert unless a caller asks for it by name, as
 * the appender option `testFault` (`StreamClient.appender`); only test/reliability does. The
 * library never takes it from the environment: a program's behaviour does not change because a
 * variable is set. The bug itself is a wrapper (faults.ts). The server's own seeded bugs are in
 * src/lite/test-fault.ts.
 *
 *   resend-indefinite  an append session whose connection is lost with inputs in flight sends
 *                      them again on a new connection, as if they had never been written
 *                      (they may already be appended: the checker must see duplicates)
 */
export type ClientTestFault = "resend-indefinite";
