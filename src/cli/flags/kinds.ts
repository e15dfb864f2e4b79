/** Kinds of flags whose values are numbers: counts, byte sizes, durations (declare.ts says what a kind is). */
import { type Flag, type FlagOptions, type Given, valueFlag } from "./declare.js";
import { parseCount, parseMillis, parseSeconds, parseSize } from "./numbers.js";

type Bounded = FlagOptions & { max?: number };

/** A non-negative integer, at most `max`: `--limit <n>`. */
export function count<Term extends string, O extends Bounded = Record<never, never>>(
  term: Term,
  help: string,
  o?: O,
): Flag<Term, Given<O, number>> {
  return bounded(term, help, (raw, name) => parseCount(raw, name, o?.max), o);
}

/** Bytes: `1048576`, `512KiB`, `1MiB`, at most `max`: `--max-batch-bytes <size>`. */
export function size<Term extends string, O extends Bounded = Record<never, never>>(
  term: Term,
  help: string,
  o?: O,
): Flag<Term, Given<O, number>> {
  return bounded(term, help, (raw, name) => parseSize(raw, name, o?.max), o);
}

/** Milliseconds from a duration (`250ms`, `30s`) or a bare number of seconds: `--linger <dur>`. */
export function millis<Term extends string, O extends FlagOptions = Record<never, never>>(
  term: Term,
  help: string,
  o?: O,
): Flag<Term, Given<O, number>> {
  return valueFlag(term, help, (raw) => parseMillis(raw), o);
}

/** Whole seconds: a bare number or a duration (`5m`): `--wait <secs>`. */
export function seconds<Term extends string>(term: Term, help: string): Flag<Term, number | undefined> {
  return valueFlag(term, help, (raw, name) => parseSeconds(raw, name));
}

/** A value flag whose bound is its parser's business, not commander's. */
function bounded<Term extends string, O extends Bounded>(
  term: Term,
  help: string,
  parse: (raw: string, name: string) => number,
  o: O | undefined,
): Flag<Term, Given<O, number>> {
  const { max: _, ...rest } = o ?? {};
  return valueFlag(term, help, parse, rest) as Flag<Term, Given<O, number>>;
}
