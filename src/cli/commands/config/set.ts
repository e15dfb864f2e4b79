/** `svc config set <key> <value>`: validated, atomic write; `access_token -` reads stdin. */
import { Command } from "commander";
import { REDACTED } from "../../../client/redacted.js";
import { handler } from "../../action.js";
import { updateConfigFile } from "../../config-file.js";
import { canonicalKey, keySpec } from "../../config-keys.js";
import { usageError } from "../../failure.js";
import { examples } from "../../help.js";
import { changed, targetTable, where } from "./shared.js";

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw usageError("`-` reads the value from stdin, but stdin is a terminal; pipe the value in");
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

export function configSetCommand(): Command {
  const cmd = new Command("set")
    .description("Store a setting in the config file")
    .argument("<key>", "setting name")
    .argument("<value>", "value (`-` reads it from stdin)");
  cmd.action(
    handler(async (ctx, [typed, raw]) => {
      const key = canonicalKey(typed!);
      const spec = keySpec(key);
      const text = raw === "-" ? await readStdin() : raw!;
      const value = spec.parse(text, key);
      await updateConfigFile(ctx.configPath, (file) => {
        targetTable(ctx, file, true)![key] = value;
      });
      ctx.out.success(`${key} set in ${where(ctx)}`);
      if (ctx.flags.json) await ctx.out.jsonLine({ ...changed(ctx, key), value: spec.secret ? REDACTED : value });
    }),
  );
  return examples(cmd, [
    "svc config set account_endpoint https://a.example.com",
    "svc config set basin_endpoint 'https://{basin}.b.example.com'",
    'printf %s "$TOKEN" | svc config set access_token -',
    "svc --profile staging config set account_endpoint http://127.0.0.1:4243",
  ]);
}
