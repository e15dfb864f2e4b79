/**
 * `svc help <topic>`: the guides under docs/ that concern the command line, printed as they are
 * (Markdown reads as plain text). Topic names are never command names, so `svc help apply` is
 * always apply's own help and `svc help specs` the guide behind it. The README links every page.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

interface HelpTopic {
  name: string;
  summary: string;
}

export const TOPICS: HelpTopic[] = [
  { name: "records", summary: "append, read, tail (one stream or many), fence, trim: formats, resuming, checkpoints" },
  { name: "consumers", summary: "read positions kept in the service: svc read --consumer, svc consumer" },
  { name: "resources", summary: "basins, streams and access tokens; stream info; check-tail" },
  { name: "configuration", summary: "where each setting comes from, the config file and profiles, svc ping" },
  { name: "conventions", summary: "stdout and stderr, URIs, --json, terminals, confirmations, errors, completion" },
  { name: "specs", summary: "svc apply (the spec, the plan, --prune, --export) and svc diff" },
  { name: "monitoring", summary: "the metric sets, /metrics, svc metrics, svc locations" },
  { name: "exit-codes", summary: "every exit code, retries, timeouts, response bounds" },
  { name: "s2", summary: "S2's SDKs and CLI against lite; svc against S2-compatible servers" },
  { name: "performance", summary: "svc bench, npm run bench and the latest figures" },
  { name: "server", summary: "svc lite: flags, durability, TLS, sessions, the data dir, tokens and auth" },
  { name: "postgres", summary: "svc lite on PostgreSQL: several nodes, sequencing, capacity, figures" },
];

export function findTopic(name: string): HelpTopic | undefined {
  return TOPICS.find((t) => t.name === name);
}

/** `svc help topics`: one line per guide. */
export function topicsText(): string {
  const width = Math.max(...TOPICS.map((t) => t.name.length));
  return [
    "Guides (`svc help TOPIC` prints one; each is also docs/<topic>.md in svc's repository):",
    "",
    ...TOPICS.map((t) => `  ${t.name.padEnd(width)}  ${t.summary}`),
    "",
    "Command help: `svc help COMMAND` or `svc COMMAND --help`; the global flags: `svc help globals`.",
    "",
  ].join("\n");
}

/** The docs/ directory of this installation: beside bin/, whichever file runs (bundle or not). */
function docsDir(): string {
  let entry = process.argv[1] ?? "";
  try {
    entry = realpathSync(entry);
  } catch {
    // As given: the error below names the path it tried.
  }
  return join(dirname(dirname(entry)), "docs");
}

/** The guide's text, or an Error saying where to read it when this installation has no docs/. */
export function topicText(topic: HelpTopic): string {
  const file = join(docsDir(), `${topic.name}.md`);
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new Error(
      `the guide ${topic.name} is not installed here (no ${file}): read docs/${topic.name}.md in svc's repository`,
    );
  }
}
