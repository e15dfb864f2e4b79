/**
 * `svc ping [svc://basin[/stream]]` (like `s2 ping`, `nats rtt`, `rpk cluster health`): is the
 * endpoint reachable, who answers (svc lite and its version, or another server), does the
 * server require a token, is ours accepted and what may it read (ping-probe.ts), and the
 * round-trip latency of `GET /ping` (min, p50, max over `-n` requests). The report goes to
 * stdout (`--json`: one document). Exit codes as for any request: 6 unreachable; after the
 * report, 3 when the token is refused and 4 (or another) when list-basins fails otherwise.
 */
import { Command } from "commander";
import { pingLines } from "../../format/ping-view.js";
import { flagAction } from "../action.js";
import { attempt, OperationError } from "../failure.js";
import { flagList } from "../flags/declare.js";
import { count } from "../flags/kinds.js";
import { examples } from "../help.js";
import { type PingPlan, runPing } from "../ping-probe.js";
import { parseBasinOrPrefix } from "../uri.js";

const FLAGS = flagList(
  count("-n, --count <n>", "timed GET /ping round trips after the first", { max: 1000, default: "5" }),
);

export function pingCommand(): Command {
  const cmd = new Command("ping")
    .description(
      "Check the endpoint: who answers, whether the token is accepted and what it may read, and the round-trip latency",
    )
    .argument("[uri]", "also probe reads of this basin (svc://basin or a bare name) or stream (svc://basin/stream)");
  flagAction(cmd, FLAGS, async (ctx, [target], f) => {
    const s = ctx.settings();
    const plan: PingPlan = {
      endpoint: { url: s.accountEndpoint.value, source: s.accountEndpoint.source },
      count: f.count,
    };
    if (s.basinEndpoint.value !== s.accountEndpoint.value)
      plan.basinEndpoint = { url: s.basinEndpoint.value, source: s.basinEndpoint.source };
    if (s.accessToken) plan.token = { value: s.accessToken.value, source: s.accessToken.source };
    if (target !== undefined) {
      const u = parseBasinOrPrefix(target);
      plan.basin = u.basin;
      if (u.stream !== undefined) plan.stream = u.stream;
    }
    const client = await ctx.client();
    const anonymous = await ctx.anonymousClient();
    try {
      const { report, failure } = await attempt("ping", plan.endpoint.url, () =>
        runPing(client, anonymous, plan, (d) => ctx.dialectClient(d)),
      );
      // Several endpoints: each node asked on its own, so the report says which answer.
      const nodes = s.accountEndpoint.value.includes(",") ? await client.server.pingEach() : undefined;
      const settings = { dialect: s.dialect, ...(s.notes.length > 0 ? { notes: s.notes } : {}) };
      if (ctx.flags.json) await ctx.out.jsonDoc({ ...report, settings, ...(nodes ? { nodes } : {}) });
      else {
        for (const l of pingLines(report)) await ctx.out.line(l);
        if (s.dialect.source !== "default")
          await ctx.out.line(`settings  dialect ${s.dialect.value} (${s.dialect.source})`);
        for (const n of s.notes) ctx.out.warn(n);
        for (const [k, n] of (nodes ?? []).entries())
          await ctx.out.line(
            `${k === 0 ? "nodes    " : "         "} ${n.node} ${n.ms !== undefined ? `answers (GET /ping ${n.ms.toFixed(2)} ms)` : `does not answer (${n.error})`}`,
          );
      }
      if (failure) throw new OperationError("ping", plan.endpoint.url, failure);
    } finally {
      await anonymous.close();
    }
  });
  return examples(cmd, ["svc ping", "svc ping svc://my-basin-01/events -n 20", "svc ping --json | jq .latency_ms.p50"]);
}
