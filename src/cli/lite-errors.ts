/**
 * `svc lite`'s start-up failures as svc's other commands report the same faults: an init file
 * that cannot be read is a usage error (exit 2), as `svc apply -f` gives, and a spec in it that
 * does not parse is bad input (exit 7), each with a hint. lite throws them as plain errors
 * (`init file: basins[0]: …`, or the read's ENOENT); the sink sees them here first.
 */
import { clientError } from "../errors.js";
import { usageError } from "./failure.js";

/** The value of `--init-file` (or `--init-file=V`) in lite's arguments. */
function initFileArg(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--init-file") return argv[i + 1];
    if (argv[i]!.startsWith("--init-file=")) return argv[i]!.slice("--init-file=".length);
  }
  return undefined;
}

export function liteStartFailure(e: unknown, argv: string[]): unknown {
  if (argv[0] !== "lite" || !(e instanceof Error)) return e;
  const file = initFileArg(argv);
  // The read's error crossed lite's server thread as its message only: `ENOENT: …, open 'FILE'`.
  const read = /^(E[A-Z]+): .*, (?:open '(.*)'|read)$/.exec(e.message);
  if (file !== undefined && read && (read[2] === file || read[1] === "EISDIR")) {
    const code = read[1]!;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code;
    return usageError(
      `--init-file ${file}: cannot read it (${why})`,
      "give the path of a JSON spec, as `svc apply -f` takes (`svc apply --schema` prints its schema)",
    );
  }
  if (e.message.startsWith("init file: ")) {
    const err = clientError("bad_input", e.message);
    Object.defineProperty(err, "hint", {
      value: `the init file is an \`svc apply\` spec: \`svc apply --schema\` prints its schema, and \`svc apply -f ${file ?? "SPEC.json"} --dry-run\` checks it against a running server`,
      enumerable: false,
    });
    return err;
  }
  return e;
}
