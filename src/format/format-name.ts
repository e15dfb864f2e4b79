/**
 * The names `--format` takes, the same for what svc append reads and what svc read writes
 * (docs/design/cli.md, "Record formats"): `text`, `json`, `json-base64`, `binary`, and the
 * aliases of the protocol's `svc-format` values and of the S2 CLI (`raw` and `ndjson` are
 * json; `base64` and `json-binsafe` are json-base64).
 */
import { clientError } from "../errors.js";
import { didYouMean } from "./suggest.js";

export type FormatName = "text" | "json" | "json-base64" | "binary";

const ALIASES: Record<string, FormatName> = {
  text: "text",
  "": "text",
  json: "json",
  raw: "json",
  ndjson: "json",
  "json-base64": "json-base64",
  base64: "json-base64",
  "json-binsafe": "json-base64",
  binary: "binary",
};

export function parseFormatName(name: string): FormatName {
  const f = ALIASES[name.trim().toLowerCase()];
  if (f === undefined)
    throw clientError(
      "usage",
      `unknown --format ${JSON.stringify(name)}${didYouMean(name.trim().toLowerCase(), ["text", "json", "json-base64", "binary"])} (expected text, json, json-base64 or binary)`,
    );
  return f;
}
