import { defineConfig } from "vitest/config";

// Tiers (style rule 10): test/unit (pure, no network), test/e2e (a real svc lite on port 0 with a
// temp data dir; the built bin/svc as a child process), test/reliability (crash, drain, resume),
// test/regressions. Extended reliability runs only with RELIABILITY=extended.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**", "test/bench/**"],
    globals: false,
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default"],
  },
});
