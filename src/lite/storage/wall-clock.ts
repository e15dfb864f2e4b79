/**
 * This node's wall clock, the one place lite reads it for stamping and judging ages (a shared
 * backend uses the database's instead: pg/db-clock.ts).
 *
 * A test seam, like the deliberate faults of src/lite/test-fault.ts and inert unless
 * SVC_LITE_TEST_FAULTS=enabled: SVC_LITE_TEST_CLOCK_SKEW_MS=N puts this node's clock N ms
 * ahead (negative: behind), as libfaketime would, for the clock tests.
 */
const CLOCK_SKEW_MS =
  process.env.SVC_LITE_TEST_FAULTS === "enabled" ? Number(process.env.SVC_LITE_TEST_CLOCK_SKEW_MS ?? 0) || 0 : 0;

/** This node's wall clock (ms since the epoch). */
export function wallClock(): number {
  return Date.now() + CLOCK_SKEW_MS;
}
