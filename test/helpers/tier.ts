/**
 * Test tiers (docs/design/reliability.md, "Test tiers"): the CI tier runs in `npm test`; the
 * extended tier runs with `RELIABILITY=extended npm run test:reliability`. Randomised suites pick
 * their sizes here and take their seed from SEED (printed on every run, so a failure replays with
 * one command).
 */
export const EXTENDED = process.env.RELIABILITY === "extended";

/** `ci` in the CI tier, `extended` with RELIABILITY=extended; an env override wins over both. */
export function tierCount(ci: number, extended: number, envName?: string): number {
  const override = envName ? Number(process.env[envName]) : NaN;
  if (Number.isSafeInteger(override) && override > 0) return override;
  return EXTENDED ? extended : ci;
}

/** The seed of a randomised suite: SEED from the environment, else a fresh one; always printed. */
export function suiteSeed(name: string): number {
  const fromEnv = Number(process.env.SEED);
  const seed = Number.isSafeInteger(fromEnv) && process.env.SEED !== "" ? fromEnv : Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`[${name}] seed ${seed} (replay: SEED=${seed} npx vitest run <this file>)\n`);
  return seed;
}
