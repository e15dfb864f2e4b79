/**
 * A flag, declared once. A command lists its flags (`flagList(...)`); each entry says its term as commander spells
 * it (`"-i, --input <file>"`: the long name, the short form, the value placeholder), its help, its kind (the parser
 * that turns what was typed into a typed value, refusing bad input with a usage error, exit 2, that names the flag)
 * and, where it has them, its default, its choices and the flag it cannot go with. From the list follow:
 *
 * - the commander options (`addFlags`), hence `--help`, shell completion and commander's own checks;
 * - the type of the values a command's action receives (`FlagValues`), inferred from the list: a flag's field is
 *   commander's attribute name (`--max-batch-records` is `maxBatchRecords`, `--no-follow` is `follow`), its type is
 *   what its kind returns, and it is optional when the flag may be absent;
 * - the parse of commander's raw values into those (`parseFlags`), before the action runs, so that what a command
 *   still checks itself is only what concerns several flags at once.
 *
 * The kinds that need nothing but commander are here (text, switches, choices, lists); numbers, sizes and durations
 * are in kinds.ts. This module is loaded at start-up (the global flags are declared with it): it imports commander
 * only.
 */
import { type Command, Option } from "commander";

export interface Flag<Term extends string = string, T = unknown> {
  /** As commander spells it: `"-n, --count <n>"`, `"--dry-run"`, `"--no-follow"`, `"--export [basins...]"`. */
  readonly term: Term;
  /** Shown by `--help`; a flag without help is accepted but not shown. */
  readonly help: string | undefined;
  /** The raw value (a string, a list of them, a switch's true or false; undefined when absent) to the typed one. */
  readonly parse: (raw: never, name: string) => T;
  /** The raw value when the flag is absent, shown by `--help` as commander shows defaults. */
  readonly default?: string | readonly string[];
  /** The values commander accepts (and `--help` and completion list). */
  readonly choices?: readonly string[];
  /** Values listed by `--help` and completion whose check is left to the parser (it says more than commander). */
  readonly offered?: readonly string[];
  /** The field of a flag this one cannot be given with (commander refuses both, exit 2). */
  readonly conflicts?: string;
  /** Repeatable: each occurrence adds a value to a list. */
  readonly repeat?: boolean;
  /**
   * Checks a value as commander meets it, before it checks the arguments: for a flag whose value
   * is optional (`--chunk [size]`), so that a word it took by mistake (the URI) is said so.
   */
  readonly check?: (raw: string, name: string) => void;
}

/** The long name in a term: `"-n, --count <n>"` → `count`. */
type LongName<S extends string> = S extends `${string}--${infer R}`
  ? R extends `${infer N} ${string}`
    ? N
    : R
  : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
/** A flag's field, as commander names it (`Option.attributeName()`). */
type KeyOf<Term extends string> = Camel<LongName<Term> extends `no-${infer R}` ? R : LongName<Term>>;

type ValueOf<F> = F extends Flag<string, infer T> ? T : never;
type MayBeAbsent<F> = undefined extends ValueOf<F> ? true : false;
type Expand<T> = { [K in keyof T]: T[K] };

/** The values of a list of flags: one field each, optional where the flag may be absent. */
export type FlagValues<L extends readonly Flag[]> = Expand<
  { [F in L[number] as MayBeAbsent<F> extends true ? never : KeyOf<F["term"]>]: ValueOf<F> } & {
    [F in L[number] as MayBeAbsent<F> extends true ? KeyOf<F["term"]> : never]?: Exclude<ValueOf<F>, undefined>;
  }
>;

/** A command's flags, in the order `--help` lists them (a tuple, so `FlagValues` knows each one). */
export function flagList<const L extends readonly Flag[]>(...flags: L): L {
  return flags;
}

/** Options every kind takes. */
export interface FlagOptions {
  /** The raw value when absent (then the typed value is always there). */
  default?: string;
  conflicts?: string;
}

/** The typed value: always there with a default, else possibly undefined. */
export type Given<O, T> = O extends { default: string } ? T : T | undefined;

/** A flag that takes one value, parsed by `parse` when given (or defaulted). */
export function valueFlag<Term extends string, T, O extends FlagOptions = Record<never, never>>(
  term: Term,
  help: string | undefined,
  parse: (raw: string, name: string) => T,
  o?: O,
): Flag<Term, Given<O, T>> {
  return {
    term,
    help,
    parse: (raw: string | undefined, name: string) => (raw === undefined ? undefined : parse(raw, name)) as Given<O, T>,
    ...o,
  };
}

/** A value taken as typed: `--prefix <prefix>`. */
export function text<Term extends string, O extends FlagOptions = Record<never, never>>(
  term: Term,
  help?: string,
  o?: O,
): Flag<Term, Given<O, string>> {
  return valueFlag(term, help, (raw) => raw, o);
}

/** One of `choices` (commander refuses others): `--transport <kind>`. */
export function choice<
  Term extends string,
  const C extends readonly string[],
  O extends FlagOptions = Record<never, never>,
>(term: Term, help: string, choices: C, o?: O): Flag<Term, Given<O, C[number]>> {
  return { ...valueFlag(term, help, (raw) => raw as C[number], o), choices };
}

/**
 * A switch: `--dry-run` is true when given, false otherwise; a lone `--no-progress` is false when given, true
 * otherwise.
 */
export function bool<Term extends string>(term: Term, help: string, o?: { conflicts?: string }): Flag<Term, boolean> {
  const negated = /(^|\s)--no-/.test(term);
  return { term, help, parse: (raw: boolean | undefined) => raw ?? negated, ...o };
}

/** A switch that is true when given and absent otherwise (a setting's other layers decide then): `--insecure`. */
export function given<Term extends string>(term: Term, help: string): Flag<Term, true | undefined> {
  return { term, help, parse: (raw: boolean | undefined) => (raw === true ? true : undefined) };
}

/**
 * A switch and its negation (`--create-stream-on-append` / `--no-create-stream-on-append`): true, false, or
 * undefined when neither is given (a setting left as it is).
 */
export function pair<Term extends string>(
  term: Term,
  help: string,
  negatedHelp: string,
): readonly [Flag<Term, boolean | undefined>, Flag<`--no-${LongName<Term>}`, boolean | undefined>] {
  const parse = (raw: boolean | undefined) => raw;
  const negated = `--no-${longName(term)}` as `--no-${LongName<Term>}`;
  return [
    { term, help, parse },
    { term: negated, help: negatedHelp, parse },
  ];
}

/**
 * A repeatable value: every occurrence is one more (`-H a=1 -H b=2`), each parsed by `each`; an empty list when
 * absent, which `--help` shows as the default unless `shown` is false.
 */
export function list<Term extends string, T = string>(
  term: Term,
  help: string | undefined,
  each?: (raw: string, name: string) => T,
  o: { shown?: boolean } = {},
): Flag<Term, T[]> {
  return {
    term,
    help,
    parse: (raw: string[] | undefined, name: string) => (raw ?? []).map((v) => (each ? each(v, name) : (v as T))),
    repeat: true,
    ...(o.shown === false ? {} : { default: [] }),
  };
}

/** `"-n, --count <n>"` → `count`; `"--no-follow"` → `no-follow`. */
export function longName(term: string): string {
  const m = /--([\w-]+)/.exec(term);
  if (!m) throw new Error(`flag ${JSON.stringify(term)} has no long name`);
  return m[1]!;
}

/** A flag's field, as commander names it: `--max-batch-records` → `maxBatchRecords`, `--no-follow` → `follow`. */
export function keyOf(term: string): string {
  return longName(term)
    .replace(/^no-/, "")
    .replace(/-(.)/g, (_, c: string) => c.toUpperCase());
}

const collect = (v: string, prev: readonly string[] = []): string[] => [...prev, v];

/** Adds the flags to `cmd` as commander options, in order. */
export function addFlags(cmd: Command, flags: readonly Flag[]): Command {
  for (const f of flags) {
    const o = new Option(f.term, f.help);
    // The parse of `parseFlags` finds values under this name; commander must store them there.
    if (o.attributeName() !== keyOf(f.term)) throw new Error(`flag ${f.term}: commander names it ${o.attributeName()}`);
    if (f.help === undefined) o.hideHelp();
    if (f.repeat) o.argParser(collect);
    const check = f.check;
    if (check)
      o.argParser((v: string) => {
        check(v, `--${longName(f.term)}`);
        return v;
      });
    if (f.choices) o.choices(f.choices);
    if (f.offered) o.argChoices = [...f.offered];
    if (f.default !== undefined) o.default(f.default);
    if (f.conflicts !== undefined) o.conflicts(f.conflicts);
    cmd.addOption(o);
  }
  return cmd;
}

/** The typed values of `flags` from commander's raw ones; a value its kind refuses is a usage error. */
export function parseFlags<L extends readonly Flag[]>(flags: L, raw: Readonly<Record<string, unknown>>): FlagValues<L> {
  const values: Record<string, unknown> = {};
  for (const f of flags) {
    const key = keyOf(f.term);
    const v = (f.parse as (raw: unknown, name: string) => unknown)(raw[key], `--${longName(f.term)}`);
    if (v !== undefined) values[key] = v;
  }
  return values as FlagValues<L>;
}

/** The long and short spellings of the flags that take a value (`-k`, `--timeout`): to skip their values in argv. */
export function valueSpellings(flags: readonly Flag[]): string[] {
  return flags.flatMap((f) => {
    const o = new Option(f.term);
    return o.required || o.optional ? [o.short, o.long].filter((s): s is string => s !== undefined) : [];
  });
}
