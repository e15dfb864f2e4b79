/**
 * The streams a tail of several streams follows: stream URIs as given (`svc://logs/app-1`),
 * and prefix patterns (`svc://logs/app-*`: a trailing `*`, the only wildcard), which are
 * listed at the start and then again every `--discover-interval` when following.
 */
import type { SvcClient } from "../../client/client.js";
import { isPositionStream } from "../consumer/names.js";
import { usageError } from "../failure.js";
import { formatUri, parseBasinOrPrefix, parseStreamUri } from "../uri.js";

export type TailTarget =
  | { kind: "stream"; basin: string; stream: string }
  | { kind: "prefix"; basin: string; prefix: string };

export interface StreamRef {
  basin: string;
  stream: string;
  uri: string;
}

/** Whether `svc tail` arguments ask for several streams (more than one, or a pattern). */
export function isMultiTail(args: string[]): boolean {
  return args.length > 1 || args.some((a) => a.endsWith("*"));
}

export function parseTailTarget(text: string): TailTarget {
  const star = text.indexOf("*");
  if (star < 0) return { kind: "stream", ...parseStreamUri(text) };
  if (star !== text.length - 1)
    throw usageError(`${JSON.stringify(text)}: only a trailing * is supported (svc://basin/prefix*)`);
  const scheme = /^(svc|s2):\/\//i.exec(text);
  if (!scheme || !text.slice(scheme[0].length).includes("/")) {
    throw usageError(
      `${JSON.stringify(text)}: a pattern matches stream names in one basin: svc://basin/prefix* (e.g. svc://my-basin/app-*)`,
    );
  }
  const u = parseBasinOrPrefix(text.slice(0, -1));
  return { kind: "prefix", basin: u.basin, prefix: u.stream ?? "" };
}

export function streamRef(basin: string, stream: string): StreamRef {
  return { basin, stream, uri: formatUri(basin, stream) };
}

/**
 * The streams a pattern matches now, in name order (streams being deleted left out, and
 * consumers' position streams unless the pattern names them: `svc://b/_svc-consumer/*`).
 */
export async function matching(client: SvcClient, t: Extract<TailTarget, { kind: "prefix" }>): Promise<StreamRef[]> {
  const out: StreamRef[] = [];
  const positions = isPositionStream(t.prefix);
  for await (const s of client.basin(t.basin).streams.listAll({ prefix: t.prefix })) {
    if (!positions && isPositionStream(s.name)) continue;
    if (s.deleted_at === undefined || s.deleted_at === null) out.push(streamRef(t.basin, s.name));
  }
  return out;
}

/** The pattern as typed, for messages. */
export function targetText(t: TailTarget): string {
  return t.kind === "stream" ? formatUri(t.basin, t.stream) : `${formatUri(t.basin, t.prefix)}*`;
}
