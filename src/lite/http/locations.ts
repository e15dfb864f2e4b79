/**
 * Locations A13–A15 (protocol.md §2.2): svc lite has one location, named by `--location`
 * (default `local`). It is listed, it is the default, and setting the default to it is a
 * no-op; any other name is 422 `invalid`.
 */
import { serverError } from "../../errors.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { requiredJson } from "./json-body.js";

export const LOCATION_NAME = /^[A-Za-z0-9:.-]{1,64}$/;

function info(ctx: RequestContext): { name: string; is_private: boolean } {
  return { name: ctx.location, is_private: false };
}

export async function listLocationsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  await ex.sendJson(200, [info(ctx)]);
}

export async function getDefaultLocationHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  await ex.sendJson(200, info(ctx));
}

export async function setDefaultLocationHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const body = await requiredJson(ex);
  if (typeof body !== "string") throw serverError("bad_json", "the body must be a JSON string: the location's name");
  checkLocation(body, ctx.location, "bad_json");
  await ex.sendJson(200, info(ctx));
}

/** A location named in a request: the right shape (else `code`), and this server's one (else 422). */
export function checkLocation(name: string, ours: string, code: "bad_json"): void {
  if (!LOCATION_NAME.test(name)) throw serverError(code, "a location name is 1..64 characters of A-Z a-z 0-9 : . -");
  if (name !== ours)
    throw serverError(
      "invalid",
      `unknown location ${JSON.stringify(name)}: this server has one location, ${JSON.stringify(ours)}`,
    );
}
