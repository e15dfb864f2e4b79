/**
 * The rules of every catalog change (seams.ts `CatalogChange`) on the local backends, in one
 * place: what each requires of what is stored, and what it writes. lmdb and memory give their
 * tables (`CatalogTables`) and run `applyChange` inside their own write (on lmdb, one
 * transaction, so the checks see what is stored); PostgreSQL states the same rules as
 * conditional SQL (pg/catalog.ts).
 *
 * Every change is conditional on what is stored, never on a record read earlier: an update
 * names the revision it read, a delete or removal the id of what it meant.
 */
import type { CatalogChange } from "./seams.js";
import type { BasinMeta, StoredToken, StreamMeta, StreamStateRecord } from "./types.js";

/** A backend's tables, as the rules read and write them. */
export interface CatalogTables {
  basin(name: string): BasinMeta | undefined;
  putBasin(meta: BasinMeta): void;
  dropBasin(name: string): void;
  stream(basin: string, name: string): StreamMeta | undefined;
  /** The basin's streams; `limit` bounds how many are wanted. */
  streamsOf(basin: string, limit: number): StreamMeta[];
  putStream(meta: StreamMeta): void;
  /** Drops the stream, its tail and whatever of its records the backend keeps with them. */
  dropStream(meta: StreamMeta): void;
  tail(id: number): StreamStateRecord | undefined;
  putTail(id: number, state: StreamStateRecord): void;
  token(id: string): StoredToken | undefined;
  putToken(token: StoredToken): void;
  dropToken(id: string, keyId: string): void;
  /** A basin or stream took an id: the next one to hand out is kept (lmdb) with this change. */
  idTaken(): void;
}

type BasinChange = Extract<CatalogChange, { op: "createBasin" | "updateBasin" | "deleteBasin" | "removeBasin" }>;
type StreamChange = Extract<CatalogChange, { op: "createStream" | "updateStream" | "deleteStream" | "removeStream" }>;
type TokenChange = Extract<CatalogChange, { op: "putToken" | "deleteToken" }>;

/** Applies `c` when its condition holds against `t` (true), or writes nothing (false). */
export function applyChange(t: CatalogTables, c: CatalogChange): boolean {
  switch (c.op) {
    case "createBasin":
    case "updateBasin":
    case "deleteBasin":
    case "removeBasin":
      return basinChange(t, c);
    case "createStream":
    case "updateStream":
    case "deleteStream":
    case "removeStream":
      return streamChange(t, c);
    default:
      return tokenChange(t, c);
  }
}

const live = <M extends { deletedAt: string | null }>(m: M | undefined): m is M =>
  m !== undefined && m.deletedAt === null;

function basinChange(t: CatalogTables, c: BasinChange): boolean {
  switch (c.op) {
    case "createBasin":
      if (t.basin(c.meta.name)) return false;
      t.putBasin({ ...c.meta, rev: 0 });
      t.idTaken();
      return true;
    case "updateBasin": {
      const cur = t.basin(c.meta.name);
      if (!live(cur) || (cur.id ?? 0) !== (c.meta.id ?? 0) || (cur.rev ?? 0) !== c.rev) return false;
      t.putBasin({ ...c.meta, rev: c.rev + 1 });
      return true;
    }
    case "deleteBasin": {
      const cur = t.basin(c.name);
      if (!live(cur) || (cur.id ?? 0) !== c.id) return false;
      t.putBasin({ ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
      for (const s of t.streamsOf(c.name, Number.MAX_SAFE_INTEGER)) {
        if (s.deletedAt === null) t.putStream({ ...s, deletedAt: c.at, rev: (s.rev ?? 0) + 1 });
      }
      return true;
    }
    case "removeBasin": {
      const cur = t.basin(c.name);
      if (!cur || (cur.id ?? 0) !== c.id || cur.deletedAt === null || t.streamsOf(c.name, 1).length > 0) return false;
      t.dropBasin(c.name);
      return true;
    }
  }
}

function streamChange(t: CatalogTables, c: StreamChange): boolean {
  switch (c.op) {
    case "createStream": {
      if (!live(t.basin(c.meta.basin)) || t.stream(c.meta.basin, c.meta.name)) return false;
      t.putStream({ ...c.meta, rev: 0 });
      t.putTail(c.meta.id, { ...c.state });
      t.idTaken();
      return true;
    }
    case "updateStream": {
      const cur = t.stream(c.meta.basin, c.meta.name);
      if (!live(cur) || cur.id !== c.meta.id || (cur.rev ?? 0) !== c.rev) return false;
      t.putStream({ ...c.meta, rev: c.rev + 1 });
      return true;
    }
    case "deleteStream": {
      const cur = t.stream(c.basin, c.name);
      if (!live(cur) || cur.id !== c.id) return false;
      if (c.ifRev !== undefined && (cur.rev ?? 0) !== c.ifRev) return false;
      if (c.ifTail) {
        const state = t.tail(c.id);
        if (!state || state.nextSeq !== c.ifTail.nextSeq || state.lastArrival !== c.ifTail.lastArrival) return false;
      }
      t.putStream({ ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
      return true;
    }
    case "removeStream": {
      const cur = t.stream(c.basin, c.name);
      if (!cur || cur.id !== c.id) return false;
      t.dropStream(cur);
      return true;
    }
  }
}

function tokenChange(t: CatalogTables, c: TokenChange): boolean {
  switch (c.op) {
    case "putToken":
      if (t.token(c.token.id)) return false;
      t.putToken(c.token);
      return true;
    case "deleteToken": {
      const cur = t.token(c.id);
      if (!cur || cur.keyId !== c.keyId) return false;
      t.dropToken(c.id, c.keyId);
      return true;
    }
  }
}
