/**
 * The command registry, the only one: one entry per top-level command, whose module exports a factory of its commander Command.
 *
 * Start-up cost matters (docs/design/performance.md, "CLI start-up"): each entry names a top-level command and loads
 * its module only when that command runs. The other commands appear as light stubs (name,
 * summary, arguments) so that `svc --help` lists them and typos get suggestions, without
 * importing any command module. `svc completion` loads everything.
 *
 * To add a command: write `commands/<name>.ts` exporting a factory that returns a commander
 * Command, then add one entry below.
 */
import { Command } from "commander";

interface CommandEntry {
  name: string;
  summary: string;
  /** Positional arguments as shown in the command list, e.g. `<uri>`. */
  args?: string;
  aliases?: string[];
  hidden?: boolean;
  /** A hidden S2 spelling: the svc command it stands for (`basin list`), offered instead of it in suggestions. */
  stands?: string;
  load: () => Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  {
    name: "basin",
    summary: "Manage basins: create, list, get, reconfigure, delete",
    load: async () => (await import("./basin/index.js")).basinCommand(),
  },
  {
    name: "stream",
    summary: "Manage streams: create, list, get, info, reconfigure, delete",
    load: async () => (await import("./stream/index.js")).streamCommand(),
  },
  {
    name: "append",
    summary: "Append records from stdin, files or the command line",
    args: "<uri> [words...]",
    load: async () => (await import("./append.js")).appendCommand(),
  },
  {
    name: "read",
    summary: "Read records from a stream",
    args: "<uri>",
    load: async () => (await import("./read.js")).readCommand(),
  },
  {
    name: "tail",
    summary: "Print the last records of a stream (or several), optionally following",
    args: "<uri...>",
    load: async () => (await import("./tail.js")).tailCommand(),
  },
  {
    name: "fence",
    summary: "Set or clear a stream's fencing token",
    args: "<uri> [new-token]",
    load: async () => (await import("./fence.js")).fenceCommand(),
  },
  {
    name: "trim",
    summary: "Trim a stream: drop records before a sequence number",
    args: "<uri> [seq-num]",
    load: async () => (await import("./trim.js")).trimCommand(),
  },
  {
    name: "consumer",
    summary: "Named read positions kept in the service (svc read --consumer): list, show, reset",
    load: async () => (await import("./consumer/index.js")).consumerCommand(),
  },
  {
    name: "ping",
    summary: "Check the endpoint: who answers, whether the token is accepted and what it may read, latency",
    args: "[uri]",
    load: async () => (await import("./ping.js")).pingCommand(),
  },
  {
    name: "check-tail",
    summary: "Print the tail of a stream: next sequence number @ last timestamp",
    args: "<uri>",
    load: async () => (await import("./check-tail.js")).checkTailCommand(),
  },
  {
    name: "token",
    summary: "Manage access tokens: create, list, revoke",
    load: async () => (await import("./token/index.js")).tokenCommand(),
  },
  {
    name: "metrics",
    summary: "Show metrics of the account, a basin or a stream (a chart on a terminal)",
    load: async () => (await import("./metrics/index.js")).metricsCommand(),
  },
  {
    name: "locations",
    summary: "List locations; get or set the default location",
    load: async () => (await import("./locations/index.js")).locationsCommand(),
  },
  {
    name: "apply",
    summary: "Make basins and streams match a JSON spec (idempotent; for CI)",
    load: async () => (await import("./apply.js")).applyCommand(),
  },
  {
    name: "config",
    summary: "Read and change the config file and its profiles",
    load: async () => (await import("./config/index.js")).configCommand(),
  },
  {
    name: "bench",
    summary: "Benchmark a basin: write, read live and catch up on a temporary stream, verifying every record",
    args: "<basin>",
    load: async () => (await import("./bench.js")).benchCommand(),
  },
  {
    name: "lite",
    summary: "Run svc lite, a durable local server implementing the whole service",
    load: async () => (await import("./lite.js")).liteCommand(),
  },
  {
    name: "completion",
    summary: "Print a shell completion script (bash, zsh, fish)",
    args: "<shell>",
    load: async () => (await import("./completion.js")).completionCommand(),
  },
  {
    name: "diff",
    summary: "Compare the configs of two basins or streams, or the server with a spec",
    args: "<left> [right]",
    load: async () => (await import("./diff.js")).diffCommand(),
  },
  {
    name: "version",
    summary: "Print svc's version",
    load: async () => (await import("./version.js")).versionCommand(),
  },
  {
    name: "__complete",
    summary: "",
    hidden: true,
    load: async () => (await import("./complete.js")).completeCommand(),
  },

  // The S2 CLI's spellings, hidden: muscle memory keeps working.
  {
    name: "ls",
    stands: "basin list",
    summary: "List basins, or the streams of a basin",
    hidden: true,
    load: async () => (await import("./ls.js")).lsCommand(),
  },
  {
    name: "list-basins",
    stands: "basin list",
    summary: "",
    hidden: true,
    load: async () => (await import("./basin/list.js")).basinListCommand("list-basins"),
  },
  {
    name: "create-basin",
    stands: "basin create",
    summary: "",
    hidden: true,
    load: async () => (await import("./basin/create.js")).basinCreateCommand("create-basin"),
  },
  {
    name: "get-basin-config",
    stands: "basin get",
    summary: "",
    hidden: true,
    load: async () => (await import("./basin/get.js")).basinGetCommand("get-basin-config"),
  },
  {
    name: "reconfigure-basin",
    stands: "basin reconfigure",
    summary: "",
    hidden: true,
    load: async () => (await import("./basin/reconfigure.js")).basinReconfigureCommand("reconfigure-basin"),
  },
  {
    name: "delete-basin",
    stands: "basin delete",
    summary: "",
    hidden: true,
    load: async () => (await import("./basin/delete.js")).basinDeleteCommand("delete-basin"),
  },
  {
    name: "list-streams",
    stands: "stream list",
    summary: "",
    hidden: true,
    load: async () => (await import("./stream/list.js")).streamListCommand("list-streams"),
  },
  {
    name: "create-stream",
    stands: "stream create",
    summary: "",
    hidden: true,
    load: async () => (await import("./stream/create.js")).streamCreateCommand("create-stream"),
  },
  {
    name: "get-stream-config",
    stands: "stream get",
    summary: "",
    hidden: true,
    load: async () => (await import("./stream/get.js")).streamGetCommand("get-stream-config"),
  },
  {
    name: "reconfigure-stream",
    stands: "stream reconfigure",
    summary: "",
    hidden: true,
    load: async () => (await import("./stream/reconfigure.js")).streamReconfigureCommand("reconfigure-stream"),
  },
  {
    name: "delete-stream",
    stands: "stream delete",
    summary: "",
    hidden: true,
    load: async () => (await import("./stream/delete.js")).streamDeleteCommand("delete-stream"),
  },
  {
    name: "issue-access-token",
    stands: "token create",
    summary: "",
    hidden: true,
    load: async () => (await import("./token/create.js")).tokenCreateCommand().name("issue-access-token"),
  },
  {
    name: "list-access-tokens",
    stands: "token list",
    summary: "",
    hidden: true,
    load: async () => (await import("./token/list.js")).tokenListCommand().name("list-access-tokens"),
  },
  {
    name: "revoke-access-token",
    stands: "token revoke",
    summary: "",
    hidden: true,
    load: async () => (await import("./token/revoke.js")).tokenRevokeCommand().name("revoke-access-token"),
  },
  {
    name: "get-account-metrics",
    stands: "metrics account",
    summary: "",
    hidden: true,
    load: async () => (await import("./metrics/s2-metrics.js")).getAccountMetricsCommand(),
  },
  {
    name: "get-basin-metrics",
    stands: "metrics basin",
    summary: "",
    hidden: true,
    load: async () => (await import("./metrics/s2-metrics.js")).getBasinMetricsCommand(),
  },
  {
    name: "get-stream-metrics",
    stands: "metrics stream",
    summary: "",
    hidden: true,
    load: async () => (await import("./metrics/s2-metrics.js")).getStreamMetricsCommand(),
  },
  {
    name: "list-locations",
    stands: "locations list",
    summary: "",
    hidden: true,
    load: async () => (await import("./locations/list.js")).locationsListCommand("list-locations"),
  },
  {
    name: "get-default-location",
    stands: "locations get-default",
    summary: "",
    hidden: true,
    load: async () => (await import("./locations/get-default.js")).locationsGetDefaultCommand("get-default-location"),
  },
  {
    name: "set-default-location",
    stands: "locations set-default",
    summary: "",
    hidden: true,
    load: async () => (await import("./locations/set-default.js")).locationsSetDefaultCommand("set-default-location"),
  },
];

function stub(e: CommandEntry): Command {
  const c = new Command(e.name).description(e.summary).allowUnknownOption().allowExcessArguments().helpOption(false);
  if (e.args) c.arguments(e.args);
  if (e.aliases) c.aliases(e.aliases);
  return c;
}

/**
 * Registers every command: fully for `wanted` (a command name, or "all"), as stubs otherwise.
 */
export async function registerCommands(program: Command, wanted: string | undefined): Promise<void> {
  for (const e of COMMANDS) {
    const full = wanted === "all" || e.name === wanted || e.aliases?.includes(wanted ?? "");
    program.addCommand(full ? await e.load() : stub(e), { hidden: e.hidden === true });
  }
}

/** The top-level command an argv names (skipping global options and their values). */
export function wantedCommand(argv: string[], valueOptions: Set<string>): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return argv[i + 1];
    if (a.startsWith("-")) {
      if (valueOptions.has(a)) i++;
      continue;
    }
    if (a === "help") return argv.slice(i + 1).find((w) => !w.startsWith("-"));
    return a === "completion" ? "all" : a;
  }
  return undefined;
}
