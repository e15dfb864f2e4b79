/**
 * The version svc lite reports in `svc-lite-version` on `GET /ping` and `/health`, so a client
 * can tell lite from another server. The same as the CLI's (cli/version.ts; a unit test keeps
 * them equal, lite may not import the CLI).
 */
export const LITE_VERSION = "0.1.0";
