/**
 * The catalog on lmdb: basins, streams and access tokens. This process is the only writer;
 * each change still checks its condition inside its own write transaction, against what is
 * stored, and resolves once flushed.
 */

import { applyChange, type CatalogTables } from "../catalog-rules.js";
import type { CatalogChange, LocalCatalog } from "../seams.js";
import { WRITE_OVERHEAD } from "../space-reserve.js";
import type { BasinMeta, StoredToken, StreamMeta } from "../types.js";
import type { LmdbEnv } from "./env.js";
import { listByName, listStart, nameKey, streamKey } from "./keys.js";

export class LmdbCatalog implements LocalCatalog {
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
    return this.e.write(cost, () => this.e.env.transaction(() => applyChange(this.tables(), c)));
  }

  /** The tables as the rules see them, inside the write transaction (reads see its writes). */
  private tables(): CatalogTables {
    const e = this.e;
    return {
      basin: (name) => this.getBasin(name),
      putBasin: (meta) => void e.basins.put(nameKey(meta.name), meta),
      dropBasin: (name) => void e.basins.remove(nameKey(name)),
      stream: (basin, name) => this.getStream(basin, name),
      streamsOf: (basin, limit) => this.listStreams(basin, "", "", limit),
      putStream: (meta) => void e.streams.put(streamKey(meta.basin, meta.name), meta),
      dropStream: (meta) => {
        void e.streams.remove(streamKey(meta.basin, meta.name));
        void e.tails.remove(meta.id);
        void e.marks.remove(meta.id);
      },
      tail: (id) => e.tails.get(id),
      putTail: (id, state) => void e.tails.put(id, state, state.nextSeq),
      token: (id) => this.getToken(id),
      putToken: (token) => {
        void e.tokens.put(nameKey(token.id), token);
        void e.tokenKeys.put(token.keyId, token.id);
      },
      dropToken: (id, keyId) => {
        void e.tokens.remove(nameKey(id));
        void e.tokenKeys.remove(keyId);
      },
      idTaken: () => void e.misc.put("nextStreamId", this.nextId),
    };
  }
}
