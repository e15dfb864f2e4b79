/**
 * The environment variables of svc's CLI: each named here once, by the setting it gives, and read only through
 * `envValue`. The settings layer asks for them where it resolves a setting (flag > environment > profile > config
 * file > default: settings.ts; the config file's path: config-file.ts; the encryption key: encryption-key.ts).
 * docs/configuration.md, "Environment variables", documents the same list (a unit test keeps the two equal).
 * An empty value is no value: `SVC_TIMEOUT= svc …` leaves the timeout to the next layer.
 */
export const ENV_VARS = {
  account_endpoint: "SVC_ACCOUNT_ENDPOINT",
  basin_endpoint: "SVC_BASIN_ENDPOINT",
  access_token: "SVC_ACCESS_TOKEN",
  compression: "SVC_COMPRESSION",
  insecure: "SVC_INSECURE",
  dialect: "SVC_DIALECT",
  timeout: "SVC_TIMEOUT",
  retries: "SVC_RETRIES",
  profile: "SVC_PROFILE",
  config: "SVC_CONFIG",
  encryption_key: "SVC_ENCRYPTION_KEY",
  http_client: "SVC_HTTP_CLIENT",
  debug: "SVC_DEBUG",
} as const;

export type EnvSetting = keyof typeof ENV_VARS;

/** The variable that gives `setting`, if one does (`timeout` → `SVC_TIMEOUT`). */
export function envName(setting: string): string | undefined {
  return Object.hasOwn(ENV_VARS, setting) ? ENV_VARS[setting as EnvSetting] : undefined;
}

/** The value of `setting`'s variable in `env`, with where it came from (`env SVC_TIMEOUT`); undefined when unset or empty. */
export function envValue(env: NodeJS.ProcessEnv, setting: EnvSetting): { value: string; source: string } | undefined {
  const name = ENV_VARS[setting];
  const value = env[name];
  return value === undefined || value === "" ? undefined : { value, source: `env ${name}` };
}

/**
 * S2's CLI variables, honoured where svc's own settings leave the endpoints unset (settings.ts):
 * S2's two endpoints, in S2's dialect, and its token and its skipping of TLS verification only
 * together with them, since what is meant for S2 goes to S2's endpoints and nowhere else.
 */
export const S2_ENV_VARS = {
  account_endpoint: "S2_ACCOUNT_ENDPOINT",
  basin_endpoint: "S2_BASIN_ENDPOINT",
  access_token: "S2_ACCESS_TOKEN",
  insecure: "S2_SSL_NO_VERIFY",
} as const;

/** The value of S2's variable for `setting` in `env`, with where it came from; undefined when unset or empty. */
export function s2EnvValue(
  env: NodeJS.ProcessEnv,
  setting: keyof typeof S2_ENV_VARS,
): { value: string; source: string } | undefined {
  const name = S2_ENV_VARS[setting];
  const value = env[name];
  return value === undefined || value === "" ? undefined : { value, source: `env ${name}` };
}
