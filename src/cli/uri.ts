/**
 * `svc://basin` and `svc://basin/stream` arguments (docs/design/cli.md, "Design rules"). The stream is everything
 * after the first `/`, so stream names may contain `/`. Where only a basin is expected a bare
 * name is accepted too; `svc://basin/` counts as basin-only. Names are validated locally.
 * S2's `s2://` spelling is the same URI (scripts and muscle memory from S2's CLI), whatever the
 * dialect: the scheme names the resource, the dialect only the header names on the wire.
 */

import { clientError } from "../errors.js";
import { badName } from "../rules/names.js";

export const SCHEME = "svc://";

/** The schemes a URI may be written with: svc's own, and S2's. */
const SCHEMES = ["svc", "s2"];

export interface SvcUri {
  basin: string;
  stream?: string;
}

function split(text: string): SvcUri {
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (schemeMatch && !SCHEMES.includes(schemeMatch[1]!.toLowerCase())) {
    throw clientError(
      "usage",
      `invalid URI scheme \`${schemeMatch[1]}://\` in ${JSON.stringify(text)}: must be \`svc://\` (or S2's \`s2://\`)`,
    );
  }
  const rest = schemeMatch ? text.slice(schemeMatch[0].length) : text;
  const slash = rest.indexOf("/");
  const basin = slash < 0 ? rest : rest.slice(0, slash);
  const stream = slash < 0 ? "" : rest.slice(slash + 1);
  const bad = badName("basin", basin);
  if (bad !== undefined) throw clientError("usage", bad);
  return stream === "" ? { basin } : { basin, stream };
}

/** Whether `text` is written with S2's scheme (`s2://…`): a command spelled S2's way. */
export function isS2Uri(text: string): boolean {
  return /^s2:\/\//i.test(text);
}

/** A basin: `svc://basin` or a bare `basin`. */
export function parseBasinArg(text: string): string {
  const uri = split(text);
  if (uri.stream !== undefined) {
    throw clientError("usage", `only a basin name was expected, but ${JSON.stringify(text)} names a stream too`);
  }
  return uri.basin;
}

/** A stream: `svc://basin/stream` (the scheme is required). */
export function parseStreamUri(text: string): Required<SvcUri> {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) {
    throw clientError(
      "usage",
      `a stream URI must begin with \`${SCHEME}\` (got ${JSON.stringify(text)}); e.g. svc://my-basin/my-stream`,
    );
  }
  const uri = split(text);
  if (uri.stream === undefined)
    throw clientError("usage", `missing stream name in ${JSON.stringify(text)}; expected svc://basin/stream`);
  const bad = badName("stream", uri.stream);
  if (bad !== undefined) throw clientError("usage", bad);
  return { basin: uri.basin, stream: uri.stream };
}

/** A basin, or a basin plus a stream-name prefix (`svc://basin/prefix`), as in `stream list`. */
export function parseBasinOrPrefix(text: string): SvcUri {
  return split(text);
}

export function formatUri(basin: string, stream?: string): string {
  return stream === undefined ? `${SCHEME}${basin}` : `${SCHEME}${basin}/${stream}`;
}
