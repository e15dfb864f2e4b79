/**
 * Whom lite trusts on disk. The data dir holds the root token (printed at start, and the key to
 * everything), the data (which holds the issued tokens' hashes) and a TLS key. Whoever can put
 * a file there chooses the root token or plants a token of their own, so, as ssh does with
 * ~/.ssh, lite refuses:
 *   - a data dir, or a data file in it, that belongs to another user (root aside: root can
 *     write anywhere anyway) or that its group or others can write;
 *   - a secret (the root token, the TLS key) that is a symlink, not a regular file, another
 *     user's, or readable or writable by its group or others.
 * Secrets are read through a descriptor opened without following a symlink and checked with
 * fstat (no window between the check and the read), and written whole, mode 0600 and durable
 * (whole-file.ts, SECRET).
 *
 * A secret the user points at (--root-token-file, --tls-key, --storage-password-file) is refused
 * as PostgreSQL refuses its server key: unless it is the user's alone (0600), or root's and
 * readable by its group only (0640: a service's group, as a secret mounted by an orchestrator
 * often is). A pipe is judged the same way: bash's `<(…)` and a shell's `|` make one that is the
 * user's alone (0600), while a named pipe another user made (`mkfifo -m 666` in a shared
 * directory) would let that user choose lite's root token, and one that others may read would
 * let them take the secret as it passes.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { clientError } from "../errors.js";

/** The data files lmdb keeps in the data dir. */
const DATA_FILES = ["data.mdb", "lock.mdb"];

function untrusted(path: string, why: string, fix: string): Error {
  return new Error(`refusing ${path}: ${why}; ${fix}`);
}

const mode = (st: Stats): string => `mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}`;

/** Another user's file (root's is trusted), or undefined where there are no uids (Windows). */
function otherOwner(st: Stats): string | undefined {
  const me = process.getuid?.();
  if (me === undefined || st.uid === me || st.uid === 0) return undefined;
  return `it belongs to another user (uid ${st.uid}), who could have chosen what it holds`;
}

function writableByOthers(st: Stats): string | undefined {
  if (process.getuid === undefined || (st.mode & 0o022) === 0) return undefined;
  return `users other than its owner can write it (${mode(st)})`;
}

/** Refuses a data dir, or a data file in it, that another user owns or can write. */
export function checkDataDir(dir: string): void {
  const st = statSync(dir);
  const why = otherOwner(st) ?? writableByOthers(st);
  if (why !== undefined) {
    throw untrusted(
      dir,
      `the data dir is not safe: ${why}`,
      st.uid === process.getuid?.() ? `make it yours alone (chmod go-w ${dir})` : "use a data dir of your own",
    );
  }
  for (const name of DATA_FILES) {
    const path = join(dir, name);
    let file: Stats;
    try {
      file = statSync(path);
    } catch {
      continue;
    }
    const whyFile = otherOwner(file) ?? writableByOthers(file);
    if (whyFile !== undefined)
      throw untrusted(
        path,
        `a data file that is not safe: ${whyFile}`,
        "its records and tokens cannot be trusted; use a data dir of your own",
      );
  }
}

/**
 * The text of a secret file in the data dir, or undefined when there is none; refused (an
 * Error saying why) when it is not the owner's alone.
 */
export function readSecret(path: string, what: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw untrusted(path, `${what} is a symbolic link`, `lite keeps its own ${what} there; remove the link`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw untrusted(path, `${what} is not a regular file`, "remove it");
    const why =
      otherOwner(st) ??
      ((st.mode & 0o077) !== 0 && process.getuid !== undefined
        ? `others may read or write it (${mode(st)})`
        : undefined);
    if (why !== undefined)
      throw untrusted(
        path,
        `${what} is not secret: ${why}`,
        st.uid === process.getuid?.() ? `chmod 600 ${path}, or remove it for a new one` : "remove it for a new one",
      );
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Why a secret the user chose is not safe to use, or undefined (see the top of this file). */
function chosenSecretProblem(st: Stats): string | undefined {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  if (st.uid !== me && st.uid !== 0) return `it belongs to another user (uid ${st.uid})`;
  const forbidden = st.uid === 0 ? 0o037 : 0o077;
  if ((st.mode & forbidden) === 0) return undefined;
  return `${st.uid === 0 ? "users other than root and its group" : "users other than its owner"} may ${st.mode & 0o022 ? "write" : "read"} it (${mode(st)})`;
}

/** The text of a secret file the user chose (`flag` names it in messages); a usage error when unsafe. */
export function readChosenSecret(path: string, flag: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (e) {
    throw clientError(
      "usage",
      `svc lite: cannot read ${flag} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() && !st.isFIFO())
      throw clientError("usage", `svc lite: ${flag} ${path} is not a regular file or a pipe`);
    const why = chosenSecretProblem(st);
    if (why !== undefined)
      throw clientError(
        "usage",
        `svc lite: refusing ${flag} ${path}, a secret${st.isFIFO() ? " (a pipe)" : ""}: ${why}; ${st.uid === process.getuid?.() || st.uid === 0 ? `chmod 600 ${path} (or, owned by root, 640)` : "use a file or pipe of your own"}`,
      );
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
