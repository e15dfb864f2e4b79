/**
 * Per-invocation context: global flags, the output, the settings (resolved lazily, so that
 * `config` commands work even with a half-set environment) and the client (imported lazily:
 * `svc --help` loads neither the client nor undici).
 */
import type { Command } from "commander";
import type { SvcClient, SvcClientOptions } from "../client/client.js";
import type { LiteProofOptions } from "../client/lite-proof.js";
import { LOCAL_LITE_ENDPOINT } from "../local-lite.js";
import type { Dialect } from "../types.js";
import { configPath, readConfigFile } from "./config-file.js";
import { resolveEncryptionKey } from "./encryption-key.js";
import { ENV_VARS, envValue } from "./env-vars.js";
import { usageError } from "./failure.js";
import { parseFlags } from "./flags/declare.js";
import { GLOBAL_FLAGS, type GlobalFlags } from "./global-flags.js";
import { Output } from "./output.js";
import { resolveSettings, type Settings } from "./settings.js";
import type { TomlTable } from "./toml.js";
import { VERSION } from "./version.js";

export { VERSION };

export class Context {
  readonly configPath: string;
  private file: TomlTable | undefined;
  private resolved: Settings | undefined;
  private svc: SvcClient | undefined;
  private keyGiven = false;

  constructor(
    readonly flags: GlobalFlags,
    readonly out: Output,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.configPath = configPath(env, flags.config);
  }

  configFile(): TomlTable {
    this.file ??= readConfigFile(this.configPath);
    return this.file;
  }

  settings(): Settings {
    this.resolved ??= resolveSettings(this.flags, this.env, this.configFile(), this.configPath);
    return this.resolved;
  }

  async client(): Promise<SvcClient> {
    if (this.svc) return this.svc;
    const s = this.settings();
    this.out.verbose(`account endpoint ${s.accountEndpoint.value} (${s.accountEndpoint.source})`);
    this.out.verbose(`basin endpoint ${s.basinEndpoint.value} (${s.basinEndpoint.source})`);
    this.out.verbose(s.accessToken ? `access token <redacted> (${s.accessToken.source})` : "no access token");
    if (s.dialect.value !== "svc") this.out.verbose(`dialect ${s.dialect.value} (${s.dialect.source})`);
    for (const n of s.notes) this.out.verbose(n);
    this.svc = await this.newClient(true);
    return this.svc;
  }

  /**
   * A second client on the same endpoints and settings that sends no token (`svc ping` asks
   * whether the server requires one); the caller closes it.
   */
  anonymousClient(): Promise<SvcClient> {
    return this.newClient(false);
  }

  /**
   * A client on the same endpoints and settings that speaks `dialect` (`svc ping` asks whether
   * the server understands the other one); the caller closes it.
   */
  dialectClient(dialect: Dialect): Promise<SvcClient> {
    return this.newClient(true, dialect);
  }

  private async newClient(withToken: boolean, dialect?: Dialect): Promise<SvcClient> {
    const s = this.settings();
    const { SvcClient, withInternals } = await import("../client/client.js");
    const key = resolveEncryptionKey(this.flags, this.env);
    this.keyGiven = key !== undefined;
    const opts: SvcClientOptions = {
      accountEndpoint: s.accountEndpoint.value,
      basinEndpoint: s.basinEndpoint.value,
      accessToken: withToken ? s.accessToken?.value : undefined,
      timeoutMs: s.timeoutMs.value,
      retries: s.retries.value,
      insecure: s.insecure.value,
      userAgent: `svc/${VERSION} (node ${process.versions.node})`,
      log: this.out.verboseOn ? (line) => this.out.verbose(line) : undefined,
      notice: (line) => this.out.warn(line),
      httpClient: envValue(this.env, "http_client")?.value === "undici" ? "undici" : "node",
      compression: s.compression.value,
      dialect: dialect ?? s.dialect.value,
      encryptionKey: key,
    };
    const proof = withToken ? liteProofOf(s) : undefined;
    return new SvcClient(proof ? withInternals(opts, { liteProof: proof }) : opts);
  }

  /** The account endpoint and its source, once settings were resolved (for connection hints). */
  endpoint(): { url: string; source: string } | undefined {
    const e = this.resolved?.accountEndpoint;
    return e ? { url: e.value, source: e.source } : undefined;
  }

  /** Whether an encryption key was given (for hints); never the key. */
  encryptionKeyGiven(): boolean {
    return this.keyGiven;
  }

  /** The profile in use, once settings were resolved (for hints). */
  profileName(): string | undefined {
    return this.resolved?.profile;
  }

  /** Where the token came from, for auth hints; never the token itself. */
  tokenSource(): string | undefined {
    try {
      return this.resolved?.accessToken?.source;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.svc?.close();
  }
}

/**
 * The proof the server at the default local address owes before a token goes to it; a
 * configured token with no lite root token to key the proof with is not sent at all.
 */
function liteProofOf(s: Settings): LiteProofOptions | undefined {
  const p = s.liteProof;
  if (p === undefined || s.accessToken === undefined) return undefined;
  if (p.rootToken === undefined)
    throw usageError(
      `no endpoint is configured, and svc sends the access token from ${p.tokenSource} to the local svc lite at ${LOCAL_LITE_ENDPOINT} only once that lite proves it is yours, with the root token in ${p.tokenFile} (absent)`,
      `set the endpoints too (svc lite prints them: export ${ENV_VARS.account_endpoint}=… ${ENV_VARS.basin_endpoint}=…), or pass --account-endpoint and --basin-endpoint`,
    );
  return {
    tokenFile: p.tokenFile,
    rootToken: p.rootToken,
    ...(p.tokenSource !== undefined ? { tokenSource: p.tokenSource } : {}),
  };
}

let current: Context | undefined;

/** The context of the running command (main.ts closes it and uses it for hints). */
export function currentContext(): Context | undefined {
  return current;
}

export async function contextFor(cmd: Command): Promise<Context> {
  if (current) return current;
  const flags = parseFlags(GLOBAL_FLAGS, cmd.optsWithGlobals());
  const out = await new Output({
    quiet: flags.quiet,
    json: flags.json,
    verbose: flags.verbose,
    color: flags.color,
  }).init();
  current = new Context(flags, out);
  return current;
}
