/**
 * What S2's CLI accepts on a command line that svc spells otherwise, rewritten to svc's
 * spelling before parsing (docs/s2.md), so a script written for S2 runs unchanged:
 *
 * - a switch given a boolean value, `--create-stream-on-append true`, `--timestamping-uncapped
 *   false` (S2's flags take one): `true` is the switch, `false` its negation
 *   (`--no-create-stream-on-append`);
 * - `-f TOKEN` on `append`, `fence` and `trim`, S2's short form of the fencing token (svc's
 *   is `-F`; none of the three follows, the meaning of `-f` elsewhere);
 * - `--id ID` on `issue-access-token` and `revoke-access-token`, how S2's CLI named the token
 *   before it took the id as an argument: the id becomes the argument.
 *
 * Only these exact forms are rewritten: anything else reaches the parser as typed. The command
 * is the first word that is neither a flag nor a global flag's value (`--profile ci append …`).
 */
import { GLOBAL_FLAGS } from "./global-flags.js";

/** Switches that have a `--no-` twin and that S2's CLI writes with a value. */
const VALUED_SWITCHES = new Set(["--create-stream-on-append", "--create-stream-on-read", "--timestamping-uncapped"]);

/** The global flags that take a value as the next word: `--timeout`, `-k`, … */
const VALUED_GLOBALS = new Set(
  GLOBAL_FLAGS.filter((f) => /<[^>]+>/.test(f.term)).flatMap((f) =>
    f.term.split(/[ ,]+/).filter((w) => w.startsWith("-")),
  ),
);

/** The command word of `argv`: past the flags, and the values of the global flags before it. */
function commandOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--") return undefined;
    if (!a.startsWith("-")) return a;
    if (VALUED_GLOBALS.has(a)) i++; // its value is the next word (`--timeout=5s` is one word)
  }
  return undefined;
}

/** Commands where S2's `-f` is the fencing token. */
const FENCING_F = new Set(["append", "fence", "trim"]);

/** Commands where S2's older CLI gave the token's id as `--id ID`. */
const ID_FLAG = new Set(["issue-access-token", "revoke-access-token"]);

export function s2Spellings(argv: string[]): string[] {
  const out: string[] = [];
  const command = commandOf(argv);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    if (VALUED_SWITCHES.has(flag)) {
      const value = inline ?? (/^(true|false)$/i.test(argv[i + 1] ?? "") ? argv[++i] : undefined);
      if (value === undefined) out.push(a);
      else if (/^true$/i.test(value)) out.push(flag);
      else if (/^false$/i.test(value)) out.push(`--no-${flag.slice(2)}`);
      else out.push(a);
      continue;
    }
    if (ID_FLAG.has(command ?? "") && flag === "--id") {
      const value = inline ?? argv[++i];
      if (value !== undefined) {
        out.push(value);
        continue;
      }
    }
    out.push(FENCING_F.has(command ?? "") && a === "-f" ? "-F" : a);
  }
  return out;
}
