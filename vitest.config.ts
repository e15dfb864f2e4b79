import { defineConfig } from "vitest/config";

// Tiers, one folder each: test/unit (pure, no network), test/e2e (a real svc lite on port 0 with a
// temp data dir; the built bin/svc as a child process), test/reliability (crash, drain, resume),
// test/regressions. Extended reliability runs only with RELIABILITY=extended.
//
// Two projects: `main` runs everything (lite on lmdb); `postgres` runs the lite protocol suites
// again with LITE_E2E_STORAGE=postgres, each server on its own database of the run's
// PostgreSQL (test/global-postgres.ts).
// S2's own SDK driving lite (s2-sdk-*) runs there too.
const LITE_PROTOCOL_SUITES = [
  ...["append", "sessions", "read", "auth", "basins", "streams", "metrics", "dialect"].map(
    (s) => `test/e2e/lite-${s}.e2e.test.ts`,
  ),
  ...["management", "data"].map((s) => `test/e2e/s2-sdk-${s}.e2e.test.ts`),
];

export default defineConfig({
  test: {
    exclude: ["node_modules/**", "dist/**", "test/bench/**"],
    globals: false,
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts", "test/global-postgres.ts"],
    pool: "forks",
    // The extended tier checks long cumulative histories (200 crash cycles): its workers get a
    // larger heap than Node's default (~4 GiB here), which one such history outgrew.
    poolOptions: {
      forks: {
        maxForks: 2,
        minForks: 1,
        execArgv: process.env.RELIABILITY === "extended" ? ["--max-old-space-size=12288"] : [],
      },
    },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "postgres", include: LITE_PROTOCOL_SUITES, env: { LITE_E2E_STORAGE: "postgres" } },
      },
    ],
  },
});
