/**
 * The catalog on lmdb: basins, streams and access tokens. This process is the only writer;
 * each change still checks its condition inside its own write transaction, against what is
 * stored, and resolves once flushed.
 */
import type { StoredToken } from "../../auth/token-info.js";
import type { Catalog, CatalogChange } from "../seams.js";
import type { BasinMeta, StreamMeta } from "../types.js";
import { WRITE_OVERHEAD } from "../space-reserve.js";
import type { LmdbEnv } from "./env.js";
import { listByName, listStart, nameKey, streamKey } from "./keys.js";

export class LmdbCatalog implements Catalog {
  private nextId: number;

  constructor(private readonly e: LmdbEnv) {
    this.nextId = e.misc.get("nextStreamId") ?? 1;
  }

  getBasin(name: string): BasinMeta | undefined {
    return this.e.basins.get(nameKey(name));
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    return listByName(this.e.basins, (b) => b.name, prefix, after, limit);
  }

  getStream(basin: string, name: string): StreamMeta | undefined {
    return this.e.streams.get(streamKey(basin, name));
  }

  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[] {
    const out: StreamMeta[] = [];
    const end = Buffer.concat([Buffer.from(basin, "utf8"), Buffer.from([1])]);
    for (const { value } of this.e.streams.getRange({ start: listStart(streamKey(basin, ""), prefix, after), end })) {
      if (!value.name.startsWith(prefix) || out.length >= limit) break;
      out.push(value);
    }
    return out;
  }

  getToken(id: string): StoredToken | undefined {
    return this.e.tokens.get(nameKey(id));
  }

  getTokenByKey(keyId: string): StoredToken | undefined {
    const id = this.e.tokenKeys.get(keyId);
    return id === undefined ? undefined : this.getToken(id);
  }

  listTokens(prefix: string, after: string, limit: number): StoredToken[] {
    return listByName(this.e.tokens, (t) => t.id, prefix, after, limit);
  }

  /** Persisted with the next change (a stream or basin id is only used in one). */
  newId(): number {
    return this.nextId++;
  }

  change(c: CatalogChange): Promise<boolean> {
    const cost = WRITE_OVERHEAD + (c.op === "deleteBasin" ? 64 * 1024 : 4096);
    return this.e.write(cost, () => this.e.env.transaction(() => this.apply(c)));
  }

  /** Runs inside the write transaction: reads see what is stored, including this transaction's writes. */
  private apply(c: CatalogChange): boolean {
    switch (c.op) {
      case "createBasin": case "updateBasin": case "deleteBasin": case "removeBasin": return this.basinChange(c);
      case "createStream": case "updateStream": case "deleteStream": case "removeStream": return this.streamChange(c);
      default: return this.tokenChange(c);
    }
  }

  private basinChange(c: Extract<CatalogChange, { op: "createBasin" | "updateBasin" | "deleteBasin" | "removeBasin" }>): boolean {
    const e = this.e;
    switch (c.op) {
      case "createBasin":
        if (this.getBasin(c.meta.name)) return false;
        void e.basins.put(nameKey(c.meta.name), { ...c.meta, rev: 0 });
        void e.misc.put("nextStreamId", this.nextId);
        return true;
      case "updateBasin": {
        const cur = this.getBasin(c.meta.name);
        if (!cur || (cur.id ?? 0) !== (c.meta.id ?? 0) || (cur.rev ?? 0) !== c.rev || cur.deletedAt !== null) return false;
        void e.basins.put(nameKey(c.meta.name), { ...c.meta, rev: c.rev + 1 });
        return true;
      }
      case "deleteBasin": {
        const cur = this.getBasin(c.name);
        if (!cur || (cur.id ?? 0) !== c.id || cur.deletedAt !== null) return false;
        void e.basins.put(nameKey(c.name), { ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
        for (const s of this.listStreams(c.name, "", "", Number.MAX_SAFE_INTEGER)) {
          if (s.deletedAt === null) void e.streams.put(streamKey(s.basin, s.name), { ...s, deletedAt: c.at, rev: (s.rev ?? 0) + 1 });
        }
        return true;
      }
      case "removeBasin": {
        const cur = this.getBasin(c.name);
        if (!cur || (cur.id ?? 0) !== c.id || cur.deletedAt === null || this.listStreams(c.name, "", "", 1).length > 0) return false;
        void e.basins.remove(nameKey(c.name));
        return true;
      }
    }
  }

  private streamChange(c: Extract<CatalogChange, { op: "createStream" | "updateStream" | "deleteStream" | "removeStream" }>): boolean {
    const e = this.e;
    switch (c.op) {
      case "createStream": {
        const b = this.getBasin(c.meta.basin);
        if (!b || b.deletedAt !== null || this.getStream(c.meta.basin, c.meta.name)) return false;
        void e.streams.put(streamKey(c.meta.basin, c.meta.name), { ...c.meta, rev: 0 });
        void e.tails.put(c.meta.id, c.state, c.state.nextSeq);
        void e.misc.put("nextStreamId", this.nextId);
        return true;
      }
      case "updateStream": {
        const cur = this.getStream(c.meta.basin, c.meta.name);
        if (!cur || cur.id !== c.meta.id || (cur.rev ?? 0) !== c.rev || cur.deletedAt !== null) return false;
        void e.streams.put(streamKey(c.meta.basin, c.meta.name), { ...c.meta, rev: c.rev + 1 });
        return true;
      }
      case "deleteStream": {
        const cur = this.getStream(c.basin, c.name);
        if (!cur || cur.id !== c.id || cur.deletedAt !== null) return false;
        if (c.ifTail) {
          const state = e.tails.get(c.id);
          if (!state || state.nextSeq !== c.ifTail.nextSeq || state.lastArrival !== c.ifTail.lastArrival) return false;
        }
        void e.streams.put(streamKey(c.basin, c.name), { ...cur, deletedAt: c.at, rev: (cur.rev ?? 0) + 1 });
        return true;
      }
      case "removeStream": {
        const cur = this.getStream(c.basin, c.name);
        if (!cur || cur.id !== c.id) return false;
        void e.streams.remove(streamKey(c.basin, c.name));
        void e.tails.remove(c.id);
        return true;
      }
    }
  }

  private tokenChange(c: Extract<CatalogChange, { op: "putToken" | "deleteToken" }>): boolean {
    const e = this.e;
    switch (c.op) {
      case "putToken":
        if (this.getToken(c.token.id)) return false;
        void e.tokens.put(nameKey(c.token.id), c.token);
        void e.tokenKeys.put(c.token.keyId, c.token.id);
        return true;
      case "deleteToken": {
        const cur = this.getToken(c.id);
        if (!cur || cur.keyId !== c.keyId) return false;
        void e.tokens.remove(nameKey(c.id));
        void e.tokenKeys.remove(c.keyId);
        return true;
      }
    }
  }
}
