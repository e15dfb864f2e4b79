/**
 * `svc basin create <basin>`: POST with a `svc-request-token` (one per logical create, reused
 * across retries), or PUT with `--ensure`; `--if-not-exists`; `--wait` until `active`.
 */
import { Command } from "commander";
import { BASIN_SCOPES, type BasinInfo } from "../../../types.js";
import { flagAction } from "../../action.js";
import { BASIN_CONFIG_FLAGS, basinConfigFromFlags } from "../../config-flags.js";
import { attempt } from "../../failure.js";
import { choice, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinArg } from "../../uri.js";
import { CREATE_FLAGS, parseCreateFlags, waitFlags, waitForBasin, warnIfDifferent } from "../create-options.js";

const FLAGS = flagList(
  ...BASIN_CONFIG_FLAGS,
  choice(
    "--scope <scope>",
    "where the basin lives (cannot change later); svc lite has one place, which every scope names (S2's aws:… scopes too)",
    BASIN_SCOPES,
  ),
  ...CREATE_FLAGS,
  ...waitFlags("until the basin is active"),
);

export function basinCreateCommand(name = "create"): Command {
  const cmd = new Command(name).description("Create a basin").argument("<basin>", "basin name or svc://basin");
  flagAction(cmd, FLAGS, async (ctx, [arg], opts) => {
    const basin = parseBasinArg(arg!);
    const uri = formatUri(basin);
    const config = basinConfigFromFlags(opts);
    const { requestToken } = parseCreateFlags(opts);
    const client = await ctx.client();
    const scope = opts.scope;
    let info: BasinInfo;
    let result: string;
    if (opts.ensure) {
      const r = await attempt("ensure basin", uri, () => client.basins.ensure(basin, { config, scope }));
      info = r.info;
      result =
        r.status === 201 || r.provision === "created" ? "created" : r.provision === "noop" ? "unchanged" : "updated";
    } else {
      try {
        const r = await attempt("create basin", uri, () =>
          client.basins.create(basin, { config, scope, requestToken }),
        );
        info = r.info;
        result = "created";
      } catch (e) {
        if (!opts.ifNotExists || !isAlreadyExists(e)) throw e;
        info = (await attempt("get basin", uri, () => client.basins.info(basin))) ?? {
          name: basin,
          state: "active",
          scope: null,
        };
        result = "exists";
        if (Object.keys(config ?? {}).length > 0)
          warnIfDifferent(
            ctx,
            `basin ${uri}`,
            config,
            await attempt("get basin", uri, () => client.basins.getConfig(basin)),
          );
      }
    }
    if (opts.wait && info.state !== "active") info = await waitForBasin(ctx, basin, "active", opts);
    if (result === "exists") ctx.out.success(`basin ${uri} already exists`);
    else ctx.out.success(`basin ${uri} ${result}${info.state !== "active" ? ` (state: ${info.state})` : ""}`);
    if (ctx.flags.json) await ctx.out.jsonDoc({ ...info, result });
  });
  return examples(cmd, [
    "svc basin create my-basin-01",
    "svc basin create my-basin-01 --storage-class standard --retention 30d --create-stream-on-append",
    "svc basin create my-basin-01 --if-not-exists --wait",
    "svc basin create my-basin-01 --ensure --retention infinite   # create or reconfigure",
  ]);
}

export function isAlreadyExists(e: unknown): boolean {
  const err = (e as { error?: unknown }).error ?? e;
  return (err as { code?: string }).code === "resource_already_exists";
}
