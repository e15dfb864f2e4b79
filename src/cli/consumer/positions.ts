/**
 * Consumers (docs/consumers.md): named read positions kept in the service itself, so that a
 * reader on any machine resumes where the last one under that name stopped. Only the public
 * interface of the protocol is used, so they work against any server of it, S2 included:
 *
 * - Each (stream, consumer) has a companion stream in the same basin,
 *   `_svc-consumer/<stream>/<consumer>` (consumer names hold no `/`, so the name splits at its
 *   last `/`). Its records are commits, each a small JSON body
 *   `{"stream", "consumer", "next_seq_num", "at", "reader"}`; the last commit is the position.
 * - A reader takes a name over with one conditional append (`takeOver`):
 *   `[fence(a fresh token), commit(P)]` with `match_seq_num` = the companion's tail when P was
 *   read, so nothing can slip in between; it restates P (the last record is always a commit,
 *   and `show` reads one record) and installs its own fencing token.
 * - Every later commit carries that token (committer.ts): once another reader or a reset has
 *   taken the name over, the old reader's commit fails 412 `fencing_token_mismatch`, and it
 *   stops. At most one reader commits under a name.
 * - The companion stream is made with infinite retention (where the server refuses that, the
 *   basin's default, said once), and commits now and then trim what came before them.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { BasinClient } from "../../client/client.js";
import type { StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError, SeqNumMismatchError, SvcError } from "../../errors.js";
import { fenceRecord, isCommandRecord } from "../../rules/commands.js";
import type { AppendRecord, SequencedRecord } from "../../types.js";
import { positionStream } from "./names.js";

/** Who commits: this host and process, written into each commit (`show` says who committed last). */
export function readerId(): string {
  return `${hostname()}:${process.pid}`;
}

/** A commit as read back. */
export interface Commit {
  /** The position: the sequence number of the next record to read. */
  next: number;
  /** Who committed (`host:pid`, or `reset by host:pid`). */
  reader: string;
  /** The commit record's own timestamp (the service's time of the commit, ms). */
  timestamp: number;
  /** The commit record's sequence number in the companion stream. */
  seqNum: number;
}

export function commitRecord(stream: string, consumer: string, next: number, reader: string): AppendRecord {
  const now = Date.now();
  const body = JSON.stringify({ stream, consumer, next_seq_num: next, at: new Date(now).toISOString(), reader });
  return { timestamp: now, headers: [], body: new TextEncoder().encode(body) };
}

/** The commit a record holds, or undefined (a fence, a trim, anything else). */
export function parseCommit(record: SequencedRecord): Commit | undefined {
  if (isCommandRecord(record) || record.headers.length > 0) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(record.body));
  } catch {
    return undefined;
  }
  if (typeof doc !== "object" || doc === null) return undefined;
  const { next_seq_num: next, reader } = doc as Record<string, unknown>;
  if (typeof next !== "number" || !Number.isSafeInteger(next) || next < 0) return undefined;
  return {
    next,
    reader: typeof reader === "string" ? reader : "",
    timestamp: record.timestamp,
    seqNum: record.seqNum,
  };
}

/** A fresh fencing token (16 characters; the protocol allows 36 bytes). */
function newToken(): string {
  return randomBytes(12).toString("base64url");
}

/** The companion stream as last seen. */
export interface Latest {
  exists: boolean;
  /** Its tail: the next position in it. */
  tail: number;
  /** The last commit, if any is left. */
  commit: Commit | undefined;
}

/** A name taken over: the token its commits carry, and where the read goes on. */
export interface Ownership {
  token: string;
  /** The position taken over: the last commit's, or on a first read the start chosen. */
  position: number;
  /** The commit restated; undefined on a first read. */
  previous: Commit | undefined;
  /** The companion's tail after the takeover (the next commit's position when nobody else writes). */
  tail: number;
  /** The companion held records but no commit (expired or trimmed): this is a first read again. */
  commitsLost: boolean;
}

/** How many times a takeover or reset reads again after another writer got in between. */
const TAKEOVER_TRIES = 10;

export class PositionStore {
  readonly name: string;
  readonly companion: StreamClient;

  constructor(
    private readonly basin: BasinClient,
    readonly stream: string,
    readonly consumer: string,
  ) {
    this.name = positionStream(stream, consumer);
    this.companion = basin.stream(this.name);
  }

  /** The last commit, found by reading the last record (and, if that is no commit, the last 1000). */
  async latest(): Promise<Latest> {
    let tail: number;
    try {
      tail = (await this.companion.checkTail()).seqNum;
    } catch (e) {
      if (e instanceof SvcError && e.code === "stream_not_found") return { exists: false, tail: 0, commit: undefined };
      throw e;
    }
    if (tail === 0) return { exists: true, tail, commit: undefined };
    let commit = lastCommit(await this.readFrom(tail - 1, 1), tail);
    if (commit === undefined && tail > 1)
      commit = lastCommit(await this.readFrom(Math.max(0, tail - 1000), 1000), tail);
    return { exists: true, tail, commit };
  }

  private async readFrom(seqNum: number, count: number): Promise<SequencedRecord[]> {
    try {
      return (await this.companion.readBatch({ seqNum }, { count, clamp: true })).records;
    } catch (e) {
      if (e instanceof RangeNotSatisfiableError) return [];
      throw e;
    }
  }

  /**
   * Makes the companion stream with infinite retention (or gives it that, when a read made it
   * with the basin's defaults). Returns a warning when the server refused it and the basin's
   * retention applies.
   */
  async prepare(exists: boolean): Promise<string | undefined> {
    try {
      await this.basin.streams.ensure(this.name, { retention_policy: { infinite: {} } });
      return undefined;
    } catch (e) {
      if (!(e instanceof SvcError) || e.status === undefined || e.status === 404 || e.status >= 500) throw e;
      if (!exists) {
        try {
          await this.basin.streams.create(this.name);
        } catch (again) {
          if (!(again instanceof SvcError && again.code === "resource_already_exists")) throw again;
        }
      }
      return `consumer ${this.consumer}: infinite retention for ${this.name} was refused (${e.status} ${e.code}), so the basin's default retention applies: a consumer that commits nothing for that long loses its position`;
    }
  }

  /**
   * Takes the name over: `[fence(new token), commit(P)]`, appended only if nothing was
   * appended since P was read (read again otherwise). P is the last commit's position, or, on
   * a first read, `firstStart()`.
   */
  async takeOver(firstStart: () => Promise<number>, reader: string, warn: (m: string) => void): Promise<Ownership> {
    let start: number | undefined;
    let prepared = false;
    for (let i = 1; ; i++) {
      const l = await this.latest();
      let position = l.commit?.next;
      if (position === undefined) {
        start ??= await firstStart();
        position = start;
        if ((!l.exists || l.tail === 0) && !prepared) {
          const w = await this.prepare(l.exists);
          if (w !== undefined) warn(w);
          prepared = true;
          continue;
        }
      }
      const token = newToken();
      const tail = await this.install(l.tail, token, position, reader, i);
      if (tail !== undefined)
        return { token, position, previous: l.commit, tail, commitsLost: l.commit === undefined && l.tail > 0 };
    }
  }

  /**
   * Moves the position (`svc consumer reset`): a takeover that installs a token nobody holds,
   * so a reader under the name stops at its next commit. `to` chooses the position, knowing the
   * last commit. Fails with `consumer_not_found` when there is no commit.
   */
  async reset(to: (from: Commit) => Promise<number>, reader: string): Promise<{ from: Commit; to: number }> {
    for (let i = 1; ; i++) {
      const l = await this.latest();
      if (l.commit === undefined) throw this.notFound();
      const position = await to(l.commit);
      if ((await this.install(l.tail, newToken(), position, reader, i)) !== undefined)
        return { from: l.commit, to: position };
    }
  }

  /** `svc://b/s has no consumer NAME` (exit 4). */
  notFound(): SvcError {
    const e = new SvcError({
      code: "consumer_not_found",
      origin: "client",
      message: `the stream has no consumer ${JSON.stringify(this.consumer)} (no commit in ${this.name})`,
    });
    Object.defineProperty(e, "hint", {
      value:
        "`svc consumer list URI` lists a stream's consumers; a consumer is made by its first `svc read URI --consumer NAME`",
      enumerable: false,
    });
    return e;
  }

  /** The appended batch's end, or undefined when another append got in first (try `attempt` of TAKEOVER_TRIES). */
  private async install(
    tail: number,
    token: string,
    position: number,
    reader: string,
    attempt: number,
  ): Promise<number | undefined> {
    const records = [fenceRecord(token, Date.now()), commitRecord(this.stream, this.consumer, position, reader)];
    try {
      return (await this.companion.append({ records, matchSeqNum: tail })).end.seqNum;
    } catch (e) {
      if (e instanceof SeqNumMismatchError && attempt < TAKEOVER_TRIES) return undefined;
      throw e;
    }
  }
}

/** The last commit among `records` before `tail`. */
function lastCommit(records: SequencedRecord[], tail: number): Commit | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.seqNum >= tail) continue;
    const c = parseCommit(r);
    if (c !== undefined) return c;
  }
  return undefined;
}
