/**
 * The connections of a SessionPool to one origin, as lanes 0, 1, …: an exchange takes a place
 * on the first lane whose connection has room, as its server's SETTINGS say once it is up
 * (max concurrent streams), and at most LANE_STREAMS. Past a server's limit Node holds a new
 * exchange unsent until another ends, so a follow of many streams would silently wait.
 * Places are taken at once, so exchanges asked for together spread over lanes before any
 * connection is up.
 */
import type http2 from "node:http2";

/** The most exchanges one connection carries, whatever its server allows (lite allows 1000 read sessions). */
const LANE_STREAMS = 500;

/** An exchange's place on one of its origin's connections, held until it ends. */
export interface Place {
  lane: string;
  held: boolean;
}

export class Lanes {
  /** A lane's exchanges, from the moment one is asked for until it ends (or fails to open). */
  private readonly taken = new Map<string, number>();
  /** A lane's connection once it is up: its server's SETTINGS say how many exchanges it takes. */
  private readonly connected = new Map<string, http2.ClientHttp2Session>();

  /** A place for one more exchange to `origin`. */
  take(origin: string): Place {
    for (let k = 0; ; k++) {
      const lane = `${origin} ${k}`;
      const taken = this.taken.get(lane) ?? 0;
      const allowed = this.connected.get(lane)?.remoteSettings.maxConcurrentStreams ?? LANE_STREAMS;
      if (taken < Math.min(LANE_STREAMS, Math.max(1, allowed))) {
        this.taken.set(lane, taken + 1);
        return { lane, held: true };
      }
    }
  }

  /** An exchange's place is free again (once: its stream's close and a failed open both say so). */
  giveBack(place: Place): void {
    if (!place.held) return;
    place.held = false;
    const left = (this.taken.get(place.lane) ?? 1) - 1;
    if (left > 0) this.taken.set(place.lane, left);
    else this.taken.delete(place.lane);
  }

  up(lane: string, session: http2.ClientHttp2Session): void {
    this.connected.set(lane, session);
  }

  gone(lane: string): void {
    this.connected.delete(lane);
  }

  clear(): void {
    this.connected.clear();
  }
}
