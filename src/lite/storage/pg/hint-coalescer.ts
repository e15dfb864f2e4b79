/**
 * Notifications, coalesced before a node acts on them. Any role that may connect can `NOTIFY
 * svc_lite`; at thousands a second each one dropped caches, re-read basins from the database and
 * re-read tails, and a node completed a handful of requests in 5 s. Now what arrives is merged
 * and handed on at most once per window: each stream's tail, each stream's or basin's metadata
 * and the tokens are read again at most once per window, however many notifications named them
 * (and what the node then does is decided by what it reads, never by a notification).
 *
 * The window is WINDOW_MS (5 ms: what one node's tail announcements are spaced by); while more
 * than FLOOD_PER_S notifications arrive in a second (far more than nodes send) it is
 * FLOOD_WINDOW_MS, so a flood costs at most 10 re-reads of each kind a second, and a genuine
 * change is still acted on within 100 ms. A flood is logged once, when it starts.
 */
import type { ClusterHint } from "../seams.js";

const WINDOW_MS = 5;
const FLOOD_WINDOW_MS = 100;
const FLOOD_PER_S = 2_000;
/** More named tails than this in one window: every served stream's tail is read instead (one query either way). */
const MAX_IDS = 4_096;
/** More named basins and streams than this in one window: every cached one is dropped instead. */
const MAX_META = 32;

export class HintCoalescer {
  private tails: Set<number> | "all" | undefined;
  private streams = new Set<number>();
  private basins = new Set<number>();
  private basinsWithStreams = new Set<number>();
  private allMeta = false;
  private tokens = false;
  private timer: NodeJS.Timeout | undefined;
  private second = { start: 0, count: 0 };
  /** More than FLOOD_PER_S notifications arrived in the last second. */
  flooded = false;

  constructor(
    private readonly deliver: (h: ClusterHint) => void,
    private readonly log: (m: string) => void,
  ) {}

  add(h: ClusterHint): void {
    if (h.kind === "lost") return this.deliver(h); // this node's own, never from a notification
    if (h.kind === "tokens") this.tokens = true;
    else if (h.kind === "tails") {
      if (!h.ids || this.tails === "all") this.tails = "all";
      else {
        this.tails ??= new Set();
        for (const id of h.ids) this.tails.add(id);
        if (this.tails.size > MAX_IDS) this.tails = "all";
      }
    } else if (h.streamId !== undefined) this.streams.add(h.streamId);
    else if (h.basinId !== undefined) (h.streams ? this.basinsWithStreams : this.basins).add(h.basinId);
    else this.allMeta = true;
    if (this.basinsWithStreams.size + this.streams.size + this.basins.size > MAX_META) this.allMeta = true;
    this.count();
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.flooded ? FLOOD_WINDOW_MS : WINDOW_MS);
      this.timer.unref();
    }
  }

  private count(): void {
    const now = performance.now();
    if (now - this.second.start >= 1_000) {
      if (this.flooded && this.second.count <= FLOOD_PER_S) {
        this.flooded = false;
        this.log("notifications arrive at a usual rate again");
      }
      this.second = { start: now, count: 0 };
    }
    if (++this.second.count > FLOOD_PER_S && !this.flooded) {
      this.flooded = true;
      this.log(
        `more than ${FLOOD_PER_S} notifications a second on channel svc_lite, more than nodes send (a role that may connect can NOTIFY): acting on them every ${FLOOD_WINDOW_MS} ms`,
      );
    }
  }

  private flush(): void {
    this.timer = undefined;
    const { tails, streams, basins, basinsWithStreams, allMeta, tokens } = this;
    this.tails = undefined;
    this.streams = new Set();
    this.basins = new Set();
    this.basinsWithStreams = new Set();
    this.allMeta = this.tokens = false;
    if (tokens) this.deliver({ kind: "tokens" });
    if (tails !== undefined) this.deliver(tails === "all" ? { kind: "tails" } : { kind: "tails", ids: [...tails] });
    if (allMeta) return this.deliver({ kind: "meta" });
    for (const id of basinsWithStreams) this.deliver({ kind: "meta", basinId: id, streams: true });
    for (const id of basins) if (!basinsWithStreams.has(id)) this.deliver({ kind: "meta", basinId: id });
    for (const id of streams) this.deliver({ kind: "meta", streamId: id });
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
