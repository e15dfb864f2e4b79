/** `svc stream create <uri>`: POST with a request token, `--ensure` (PUT), `--if-not-exists`. */
import { Command } from "commander";
import type { StreamInfo } from "../../../types.js";
import { flagAction } from "../../action.js";
import { streamConfigFlags, streamConfigFromFlags } from "../../config-flags.js";
import { attempt } from "../../failure.js";
import { flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";
import { isAlreadyExists } from "../basin/create.js";
import { CREATE_FLAGS, parseCreateFlags, warnIfDifferent } from "../create-options.js";

const FLAGS = flagList(...streamConfigFlags(), ...CREATE_FLAGS);

export function streamCreateCommand(name = "create"): Command {
  const cmd = new Command(name).description("Create a stream").argument("<uri>", "svc://basin/stream");
  flagAction(cmd, FLAGS, async (ctx, [arg], opts) => {
    const { basin, stream } = parseStreamUri(arg!);
    const uri = formatUri(basin, stream);
    const config = streamConfigFromFlags(opts);
    const { requestToken } = parseCreateFlags(opts);
    const streams = (await ctx.client()).basin(basin).streams;
    let info: StreamInfo | undefined;
    let result: string;
    if (opts.ensure) {
      const r = await attempt("ensure stream", uri, () => streams.ensure(stream, config));
      info = r.info;
      result =
        r.status === 201 || r.provision === "created" ? "created" : r.provision === "noop" ? "unchanged" : "updated";
    } else {
      try {
        info = (await attempt("create stream", uri, () => streams.create(stream, { config, requestToken }))).info;
        result = "created";
      } catch (e) {
        if (!opts.ifNotExists || !isAlreadyExists(e)) throw e;
        result = "exists";
        if (Object.keys(config ?? {}).length > 0)
          warnIfDifferent(
            ctx,
            `stream ${uri}`,
            config,
            await attempt("get stream", uri, () => streams.getConfig(stream)),
          );
      }
    }
    ctx.out.success(result === "exists" ? `stream ${uri} already exists` : `stream ${uri} ${result}`);
    if (ctx.flags.json) await ctx.out.jsonDoc({ basin, name: stream, ...(info ?? {}), result });
  });
  return examples(cmd, [
    "svc stream create svc://my-basin-01/events",
    "svc stream create svc://my-basin-01/audit --retention infinite --timestamping-mode client-require",
    "svc stream create svc://my-basin-01/events --if-not-exists",
  ]);
}
