/**
 * The connections of a SessionPool to one origin, as lanes 0, 1, …: an exchange takes a place
 * on the first lane whose connection has room, as its server's SETTINGS say once it is up
 * (max concurrent streams), and at most LANE_STREAMS. Past a server's limit Node holds a new
 * exchange unsent until another ends, so a follow of many streams would silently wait.
 * Places are taken at once, so exchanges asked for together spread over lanes once a lane's
 * limit is known. Those asked for before (a lane's first exchanges, while it connects) are
 * counted against LANE_STREAMS, and checked again once its server's SETTINGS came (`fits`): a
 * place past the limit then moves to another lane, never to be sent and held unsent.
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
  /** A lane's places in the order they were taken, from the moment one is asked for until it ends (or fails to open). */
  private readonly taken = new Map<string, Place[]>();
  /** A lane's connection once it is up: its server's SETTINGS say how many exchanges it takes. */
  private readonly connected = new Map<string, http2.ClientHttp2Session>();

  /** A place for one more exchange to `origin`. */
  take(origin: string): Place {
    for (let k = 0; ; k++) {
      const lane = `${origin} ${k}`;
      const taken = this.taken.get(lane) ?? [];
      if (taken.length < this.allowed(lane)) {
        const place = { lane, held: true };
        taken.push(place);
        this.taken.set(lane, taken);
        return place;
      }
    }
  }

  /**
   * Whether `place` is within what its lane's server allows, now that the connection is up
   * (its SETTINGS came): the places taken before it count first.
   */
  fits(place: Place): boolean {
    return (this.taken.get(place.lane) ?? []).indexOf(place) < this.allowed(place.lane);
  }

  private allowed(lane: string): number {
    const server = this.connected.get(lane)?.remoteSettings.maxConcurrentStreams ?? LANE_STREAMS;
    return Math.min(LANE_STREAMS, Math.max(1, server));
  }

  /** An exchange's place is free again (once: its stream's close and a failed open both say so). */
  giveBack(place: Place): void {
    if (!place.held) return;
    place.held = false;
    const taken = this.taken.get(place.lane);
    if (!taken) return;
    taken.splice(taken.indexOf(place), 1);
    if (taken.length === 0) this.taken.delete(place.lane);
  }

  /** `lane`'s connection is up and its server's SETTINGS came: its limit is known. */
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
