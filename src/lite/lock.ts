/**
 * One server per data dir (docs/design/reliability.md, "Requirements": R2): an exclusive lock that
 * only the data dir's owner can take, that a symlink, a relative path or another TMPDIR cannot get
 * around, and that a kill -9 releases.
 *
 * Node has no flock, so the lock is made of unix socket files inside the data dir, where only
 * its owner can create files (data-dir.ts refuses a dir others can write). Each starter
 * listens on a socket of its own, `lite-lock-<random>`, then looks at the others':
 *   - one that nobody listens on (connect refused) belonged to a process that has died, which
 *     the kernel notices however it died. Its name is unique, so no one will ever listen on it
 *     again and removing it cannot remove a live lock (one shared lock file, removed after such
 *     a check, let two starters in after a kill -9: both found it dead, and the second removed
 *     the first's new one);
 *   - a live one answers one byte: H (holds the lock) or S (still starting); one that does not
 *     answer is looked at again, and counts as a holder once it has not answered for 5 s;
 *   - a starter loses to a holder, and to a starter with a smaller name; it waits while only
 *     starters with larger names are there (each loses or holds soon); it holds once it sees
 *     no live socket at all.
 * Each starter listens before it looks, so of two that both saw no one, the later would have
 * seen the earlier: at most one holds. A socket is bound under a temporary name and renamed
 * into view once listening, so no one takes a live socket for a dead one.
 *
 * The lock used to be an abstract unix socket named after the dir's device and inode. Abstract
 * names have no permissions: any local user could bind that name first and keep lite from
 * starting. A secret in the name would not help: bound names are listed in /proc/net/unix for
 * anyone to read, and can be taken once the server stops. An older lite of the same user that
 * still serves the dir under that lock is recognised, so an upgrade does not start a second
 * server beside it.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";

const PREFIX = "lite-lock-";
const TEMP = ".tmp";
/** The longest socket path bound as it is (the kernel takes 104 to 108 bytes). */
const MAX_SOCKET_PATH = 100;
/** How long one look at a live socket waits for its answer. */
const ANSWER_MS = 1000;
/**
 * A live socket that has not answered for this long in all counts as a holder (a stopped or
 * hung server). A starter on a busy machine may take a second to answer: until then it is
 * looked at again, not taken for a holder (every starter would then lose, none hold).
 */
const UNANSWERED_MS = 5000;
/** The holder touches its socket file this often, so that no cleaner of old files removes it. */
const TOUCH_MS = 3_600_000;

type State = "H" | "S";
type Seen = State | "unclear";

export class DataDirLocked extends Error {
  constructor(dataDir: string) {
    super(`another svc lite server is already using the data dir ${dataDir}`);
    this.name = "DataDirLocked";
  }
}

interface Dir {
  path: string;
  fd?: number;
}

/** Where to bind or connect to `name`: its path, or, when that is too long, through /proc. */
function address(dir: Dir, name: string): string {
  const direct = join(dir.path, name);
  if (Buffer.byteLength(direct) <= MAX_SOCKET_PATH) return direct;
  if (process.platform !== "linux")
    throw new Error(`the data dir path ${dir.path} is too long for its lock socket: choose a shorter one`);
  dir.fd ??= openSync(dir.path, "r");
  return `/proc/self/fd/${dir.fd}/${name}`;
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.removeListener("error", reject);
      resolve();
    });
  });
}

/** What a peer socket says: its state, dead, or unclear (no answer in time). Anything else odd counts as a holder. */
function peek(path: string): Promise<Seen | "dead"> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let answer = "";
    const done = (state: Seen | "dead"): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(state);
    };
    const timer = setTimeout(() => done("unclear"), ANSWER_MS);
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      answer += text;
    });
    socket.on("end", () => done(answer === "S" ? "S" : "H"));
    socket.on("error", (e: NodeJS.ErrnoException) =>
      done(e.code === "ECONNREFUSED" || e.code === "ENOENT" ? "dead" : "H"),
    );
  });
}

/** The live sockets of others, by name; dead ones are removed on the way. */
async function others(dir: Dir, mine: string): Promise<Map<string, Seen>> {
  const live = new Map<string, Seen>();
  const names = readdirSync(dir.path).filter((n) => n.startsWith(PREFIX) && n !== mine);
  await Promise.all(
    names.map(async (name) => {
      if (name.endsWith(TEMP)) return removeIfOrphan(dir, name);
      const state = await peek(address(dir, name));
      if (state === "dead") rmSync(join(dir.path, name), { force: true });
      else live.set(name, state);
    }),
  );
  return live;
}

/** A temporary socket left by a process that died before renaming it (`<name>.<pid>.tmp`). */
function removeIfOrphan(dir: Dir, name: string): void {
  const pid = Number(name.slice(0, -TEMP.length).split(".").pop());
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") rmSync(join(dir.path, name), { force: true });
  }
}

/** Resolves once this starter holds the lock; rejects with DataDirLocked when another does or will. */
async function contend(dir: Dir, mine: string): Promise<void> {
  let unansweredSince: number | undefined;
  for (;;) {
    const live = await others(dir, mine);
    if (live.size === 0) return;
    for (const [name, state] of live) if (state === "H" || name < mine) throw new DataDirLocked(dir.path);
    if ([...live.values()].includes("unclear")) {
      unansweredSince ??= Date.now() - ANSWER_MS;
      if (Date.now() - unansweredSince >= UNANSWERED_MS) throw new DataDirLocked(dir.path);
    } else {
      unansweredSince = undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Whether an older svc lite of this user is serving the dir: one that locked it with the
 * abstract socket named after its device and inode. That name is looked up in /proc/net/unix,
 * and its socket among this user's processes; a socket of that name that another user holds
 * is a squatter (or serves no dir of ours) and is ignored. Linux only, as that lock was.
 */
function olderLiteServes(dataDir: string): boolean {
  if (process.platform !== "linux") return false;
  const st = statSync(dataDir, { bigint: true });
  const name = `@svc-lite-lock:${st.dev.toString(16)}:${st.ino.toString(16)}`;
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return false;
  }
  const sockets = new Set<string>();
  for (const line of table.split("\n")) {
    const [, , , , , , inode, path] = line.trim().split(/\s+/);
    if (path?.replace(/@+$/, "") === name) sockets.add(`socket:[${inode}]`); // the name's trailing NULs show as @
  }
  if (sockets.size === 0) return false;
  const me = process.getuid?.();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (statSync(`/proc/${pid}`).uid !== me) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`))
        if (sockets.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

export async function acquireLock(dataDir: string): Promise<{ release: () => Promise<void> }> {
  if (olderLiteServes(dataDir)) throw new DataDirLocked(dataDir);
  const dir: Dir = { path: dataDir };
  const mine = `${PREFIX}${randomBytes(8).toString("hex")}`;
  const temp = `${mine}.${process.pid}${TEMP}`;
  let state: State = "S";
  const server = createServer((s) => {
    s.on("error", () => undefined);
    s.end(state);
  });
  const close = async (): Promise<void> => {
    rmSync(join(dataDir, mine), { force: true });
    await new Promise((resolve) => server.close(resolve));
    if (dir.fd !== undefined) closeSync(dir.fd);
  };
  try {
    await listen(server, address(dir, temp)).catch((e: NodeJS.ErrnoException) => {
      const hint = e.code === "EACCES" ? "" : " (a file system without them? use a dir on a local one)";
      throw Object.assign(
        new Error(
          `cannot lock the data dir ${dataDir}: cannot make a unix socket in it: ${e.code ?? e.message}${hint}`,
        ),
        { code: e.code },
      );
    });
    chmodSync(join(dataDir, temp), 0o600);
    renameSync(join(dataDir, temp), join(dataDir, mine));
    await contend(dir, mine);
  } catch (e) {
    rmSync(join(dataDir, temp), { force: true });
    await close();
    throw e;
  }
  state = "H";
  server.unref();
  const touch = setInterval(() => {
    try {
      utimesSync(join(dataDir, mine), new Date(), new Date());
    } catch {
      /* the dir is gone: nothing to keep */
    }
  }, TOUCH_MS).unref();
  return {
    release: () => {
      clearInterval(touch);
      return close();
    },
  };
}
