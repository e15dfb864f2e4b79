/** Locations: A13–A15 of protocol.md §2.2. The default is set with a bare JSON string body. */
import { clientError } from "../errors.js";
import type { LocationInfo } from "../types.js";
import type { Caller } from "./caller.js";

function location(data: unknown, op: string): LocationInfo {
  const l = data as Partial<LocationInfo> | undefined;
  if (!l || typeof l.name !== "string") throw clientError("protocol", `${op} response is not a location`);
  return { name: l.name, is_private: l.is_private === true };
}

export class LocationsApi {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly base: string,
  ) {}

  async list(): Promise<LocationInfo[]> {
    const res = await this.caller.json<unknown>({ method: "GET", url: `${this.base}/locations`, idempotent: true });
    if (!Array.isArray(res.data)) throw clientError("protocol", "list-locations response is not an array");
    return res.data.map((l) => location(l, "list-locations"));
  }

  async getDefault(): Promise<LocationInfo> {
    const res = await this.caller.json<unknown>({
      method: "GET",
      url: `${this.base}/locations/default`,
      idempotent: true,
    });
    return location(res.data, "get-default-location");
  }

  /** Idempotent: setting the same default twice has the same effect. */
  async setDefault(name: string): Promise<LocationInfo> {
    const res = await this.caller.json<unknown>({
      method: "PUT",
      url: `${this.base}/locations/default`,
      body: name,
      idempotent: true,
    });
    return location(res.data, "set-default-location");
  }
}
