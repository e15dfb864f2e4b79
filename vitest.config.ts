import { defineConfig } from "vitest/config";

// Two tiers, by where a file lives (docs/development.md):
// - `npm test` (the default tier): unit tests, the e2e suites on lmdb, and the regressions that
//   are neither PostgreSQL races nor probes: what a developer runs after every change.
// - `npm run test:extended` (projects `extended` and `postgres`): the reliability suites, the PostgreSQL
//   regressions (test/regressions/pg-*), the e2e suites of nodes on PostgreSQL, failover and
//   standby, the new-user walk and `npm run cluster`, and the lite protocol suites again on PostgreSQL (project `postgres`:
//   LITE_E2E_STORAGE=postgres, each server on its own database of the run's PostgreSQL,
//   test/global-postgres.ts; S2's own SDK driving lite, s2-sdk-*, runs there too).
// `npx vitest run FILE` runs a file in whichever project has it. CI runs both tiers.
// RELIABILITY=extended makes the randomised suites longer (test/helpers/tier.ts).
const LITE_PROTOCOL_SUITES = [
  ...["append", "sessions", "read", "auth", "basins", "streams", "metrics", "dialect"].map(
    (s) => `test/e2e/lite-${s}.e2e.test.ts`,
  ),
  ...["management", "data"].map((s) => `test/e2e/s2-sdk-${s}.e2e.test.ts`),
];

const EXCLUDED = ["node_modules/**", "dist/**", "test/bench/**"];

/**
 * The extended tier's files beside test/reliability and the PostgreSQL regressions: the walks
 * (a new user's, and the client package installed from the registry),
 * and the soaks and load probes that take tens of seconds by design (the authorization model's
 * random pairs, a 200-run pipe soak, a follow through a 30 s outage, two tenants' budgets
 * under load).
 */
const EXTENDED_FILES = [
  "test/reliability/**/*.test.ts",
  "test/regressions/pg-*.test.ts",
  ...[
    "new-user-walk",
    "cluster-script",
    "lite-postgres",
    "lite-metrics-nodes",
    "pg-failover-keeps-acked-appends",
    "pg-standby",
    "lite-auth-model",
    "cli-data-pipe",
    "client-install",
  ].map((f) => `test/e2e/${f}.e2e.test.ts`),
  ...[
    "follow-read-dies-during-outage",
    "tenants-on-one-connection-share-append-budget",
    "nine-unread-ack-sessions-stall-other-tenants",
  ].map((f) => `test/regressions/${f}.test.ts`),
];

export default defineConfig({
  test: {
    exclude: EXCLUDED,
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
      {
        extends: true,
        // `npm test` runs this project with one module graph per worker, not one per file, and in
        // three workers (--poolOptions.forks.isolate=false --poolOptions.forks.maxForks=3 in
        // package.json: a project's own poolOptions are not honoured): its ~280 files spent a
        // quarter of their CPU loading the same modules again, and wait on servers and child
        // processes more than they compute. And with minForks=3: with fewer, the pool shrank when
        // a worker went idle and, without isolation, terminated a busy one instead (its file
        // never reported, "Terminating worker thread", exit 1: 4 runs of 4 with the unit tests
        // and the shell-completion regression, none of 3 with minForks=3).
        // Tests must not rely on a module's state being fresh; the extended tier stays isolated.
        test: {
          name: "main",
          include: ["test/**/*.test.ts"],
          exclude: [...EXCLUDED, ...EXTENDED_FILES],
        },
      },
      { extends: true, test: { name: "extended", include: EXTENDED_FILES } },
      {
        extends: true,
        test: { name: "postgres", include: LITE_PROTOCOL_SUITES, env: { LITE_E2E_STORAGE: "postgres" } },
      },
    ],
  },
});
