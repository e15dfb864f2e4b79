/** Helpers for `svc config …`: which table a command reads or writes (top level or a profile). */
import type { Context } from "../../context.js";
import { selectedProfile } from "../../settings.js";
import type { TomlTable } from "../../toml.js";

/** The table `--profile`/`SVC_PROFILE` selects, created on demand when `create` is set. */
export function targetTable(ctx: Context, file: TomlTable, create: boolean): TomlTable | undefined {
  const profile = selectedProfile(ctx.flags, ctx.env)?.value;
  if (profile === undefined) return file;
  let profiles = file.profiles;
  if (typeof profiles !== "object") {
    if (!create) return undefined;
    profiles = file.profiles = {};
  }
  let table = profiles[profile];
  if (typeof table !== "object") {
    if (!create) return undefined;
    table = profiles[profile] = {};
  }
  return table;
}

export function where(ctx: Context): string {
  const profile = selectedProfile(ctx.flags, ctx.env)?.value;
  return profile === undefined ? ctx.configPath : `${ctx.configPath} [profiles.${profile}]`;
}

/** The `--json` head of `config set` / `unset`: which key, in which file and profile. */
export function changed(ctx: Context, key: string): { key: string; file: string; profile: string | null } {
  return { key, file: ctx.configPath, profile: selectedProfile(ctx.flags, ctx.env)?.value ?? null };
}
