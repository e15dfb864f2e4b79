/** Flags shared by `basin create` and `stream create`, and waiting for basin states. */

import { clientError, SvcError } from "../../errors.js";
import { parseDuration } from "../../format/duration.js";
import type { BasinInfo, BasinState } from "../../types.js";
import type { Context } from "../context.js";
import { attempt, usageError } from "../failure.js";
import { bool, type FlagValues, flagList, text, valueFlag } from "../flags/declare.js";

export const CREATE_FLAGS = flagList(
  text("--request-token <token|auto>", "svc-request-token for safe retries (auto: a fresh UUID)", {
    default: "auto",
  }),
  bool("--if-not-exists", "succeed (exit 0) when it already exists", { conflicts: "ensure" }),
  bool("--ensure", "create or reconfigure (PUT): only the given settings change"),
);

type CreateFlags = FlagValues<typeof CREATE_FLAGS>;

/** `--wait` (for what `what` says) and how long. */
export function waitFlags(what: string) {
  return flagList(
    bool("--wait", `wait ${what}`),
    // The text is kept for the message that gives up: "after 2m", as it was said.
    valueFlag(
      "--wait-timeout <dur>",
      "give up waiting after this long",
      (raw) => ({ ms: parseDuration(raw), text: raw }),
      {
        default: "60s",
      },
    ),
  );
}

export type WaitFlags = FlagValues<ReturnType<typeof waitFlags>>;

/**
 * The settings asked for that an existing resource does not have (`path: has → asked`), for
 * `--if-not-exists` on a resource that exists with other settings. Only fields that were
 * given are compared.
 */
function configMismatches(asked: unknown, current: unknown, path = ""): string[] {
  if (asked === undefined) return [];
  if (asked === null || typeof asked !== "object" || Array.isArray(asked)) {
    return JSON.stringify(asked) === JSON.stringify(current ?? null)
      ? []
      : [`${path}: ${JSON.stringify(current ?? null)} (asked: ${JSON.stringify(asked)})`];
  }
  const cur = (current !== null && typeof current === "object" ? current : {}) as Record<string, unknown>;
  return Object.entries(asked as Record<string, unknown>).flatMap(([k, v]) =>
    configMismatches(v, cur[k], path ? `${path}.${k}` : k),
  );
}

/** Warns when `--if-not-exists` met a resource whose settings differ from the ones given. */
export function warnIfDifferent(ctx: Context, what: string, asked: unknown, current: unknown): void {
  const diffs = configMismatches(asked, current);
  if (diffs.length === 0) return;
  ctx.out.warn(
    `${what} already exists with other settings, which were left unchanged: ${diffs.join("; ")}. Use --ensure to reconfigure it`,
  );
}

export function parseCreateFlags(f: CreateFlags): { requestToken?: string } {
  const t = f.requestToken;
  if (t === "auto") return {};
  if (Buffer.byteLength(t, "utf8") > 36) throw usageError("--request-token must be at most 36 bytes");
  if (f.ensure) throw usageError("--request-token applies to create, not to --ensure (PUT is idempotent by itself)");
  return { requestToken: t };
}

/** Polls the basin list until the basin reaches `state` (or, for "gone", disappears). */
export async function waitForBasin(
  ctx: Context,
  basin: string,
  state: BasinState | "gone",
  f: WaitFlags,
): Promise<BasinInfo> {
  const deadline = Date.now() + f.waitTimeout.ms;
  const client = await ctx.client();
  return ctx.out.spin(`waiting for basin ${basin} to be ${state}`, async () => {
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      const info = await attempt("get basin", `svc://${basin}`, () => client.basins.info(basin));
      if (state === "gone" ? info === undefined : info?.state === state)
        return info ?? { name: basin, state: "deleting", scope: null };
      if (info === undefined && state !== "gone")
        throw new SvcError({
          code: "basin_not_found",
          status: 404,
          origin: "client",
          message: `basin ${basin} disappeared while waiting for it to be ${state}`,
        });
      if (Date.now() + delay > deadline) {
        throw clientError(
          "client_timeout",
          `basin ${basin} is still ${info?.state ?? "present"} after ${f.waitTimeout.text}`,
        );
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  });
}
