/**
 * Deliberate bugs for checking the reliability checkers (docs/design/reliability.md, "Checking the
 * checkers"). Inert unless BOTH `SVC_LITE_TEST_FAULTS=enabled` and `SVC_LITE_TEST_FAULT=<name>` are
 * in lite's environment; only test/reliability sets them. Each hook is one comparison with a
 * constant.
 *
 *   ack-before-sync  acks (and live readers) before the storage write is durable
 *   ignore-match     match_seq_num is not checked
 *   ignore-fence     the fencing token is not checked
 *   skip-seq         acks starting at n % 50 ≥ 45 report their range one position late
 *   drop-last        the last record of a multi-record batch is not stored
 *   reorder          an ack starting at n % 10 = 3 is swapped with the next ack
 *   trim-past-own    a trim command may pass its own position
 *   tail-short       a stream's tail is loaded one record short (after recovery's own repair)
 *   read-skip        live read sessions drop the first record of a multi-record batch at an odd seq num
 */
const TEST_FAULTS = [
  "ack-before-sync",
  "ignore-match",
  "ignore-fence",
  "skip-seq",
  "drop-last",
  "reorder",
  "trim-past-own",
  "tail-short",
  "read-skip",
] as const;
export type TestFault = (typeof TEST_FAULTS)[number];

function active(): TestFault | undefined {
  if (process.env.SVC_LITE_TEST_FAULTS !== "enabled") return undefined;
  const name = process.env.SVC_LITE_TEST_FAULT as TestFault | undefined;
  return name && TEST_FAULTS.includes(name) ? name : undefined;
}

export const TEST_FAULT: TestFault | undefined = active();
