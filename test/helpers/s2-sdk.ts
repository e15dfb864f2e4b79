/**
 * S2's own TypeScript SDK (`@s2-dev/streamstore`, a pinned dev dependency) pointed at a svc
 * lite started by the test, configured as its README tells S2 users to point it at a local
 * server: the same URL for the account and basin endpoints (so the SDK sends `s2-basin`).
 * Nothing renames anything in between: the SDK speaks S2's names and lite answers them.
 */
import { S2, type S2ClientOptions, S2Environment, S2Error } from "@s2-dev/streamstore";
import type { Lite } from "./lite.js";

/** Quick retries: tests provoke errors on purpose, and a refused request is not retried anyway. */
export const SDK_RETRY = { maxAttempts: 3, minBaseDelayMillis: 10, maxBaseDelayMillis: 50 };

/**
 * A client built as S2's README builds one from the environment (S2_ACCOUNT_ENDPOINT,
 * S2_BASIN_ENDPOINT, S2_ACCESS_TOKEN), here from lite's URL and a token.
 */
export function sdkClient(
  lite: Pick<Lite, "url" | "token">,
  token = lite.token,
  extra: Partial<S2ClientOptions> = {},
): S2 {
  const env = { S2_ACCOUNT_ENDPOINT: lite.url, S2_BASIN_ENDPOINT: lite.url, S2_ACCESS_TOKEN: token };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const parsed = S2Environment.parse();
    return new S2({ ...parsed, accessToken: parsed.accessToken!, retry: SDK_RETRY, ...extra });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The error a call rejects with, as the SDK reports it (fails the test if it resolves). */
export async function sdkError(call: Promise<unknown>): Promise<S2Error> {
  try {
    await call;
  } catch (e) {
    if (e instanceof S2Error) return e;
    throw e;
  }
  throw new Error("expected the SDK call to fail, and it succeeded");
}

/** status, code and origin of an SDK error, for one comparison. */
export function reported(e: S2Error): { status: number; code: string | undefined; origin: string } {
  return { status: e.status, code: e.code, origin: e.origin };
}
