/** The version svc prints; bin/svc.js answers `svc --version` from here without loading the CLI. */
export const VERSION = "0.1.0";
