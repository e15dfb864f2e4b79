/**
 * How the text of a setting of svc lite reads (option-table.ts): each reader takes a flag's value
 * or a variable's text and returns the value, or throws a usage error (exit 2) that names the
 * flag or the variable, says what it takes and quotes what it got.
 */
import { clientError } from "../errors.js";
import { durationSecs } from "../rules/durations.js";
import { LOCATION_NAME } from "./http/locations.js";
import { isPostgresUrl } from "./storage/pg/config.js";

/** Reads a flag's value or a variable's text; `from` (`--port`, `SVC_LITE_SWEEP_MS`) names it in the error. */
export type Read<T> = (text: string, from: string) => T;

/** A usage error of svc lite (exit 2), with the `hint:` line the CLI's sink prints, when given. */
export const usage = (message: string, hint?: string) => {
  const e = clientError("usage", `svc lite: ${message}`);
  if (hint !== undefined) Object.defineProperty(e, "hint", { value: hint, enumerable: false });
  return e;
};

export const text: Read<string> = (t) => t;
/** A whole number from `min` to `max`. */
export const whole =
  (min: number, max: number, what: string): Read<number> =>
  (t, from) => {
    const n = Number(t);
    if (!/^\d+$/.test(t) || !Number.isSafeInteger(n) || n < min || n > max)
      throw usage(`${from} must be ${what}, got ${JSON.stringify(t)}`);
    return n;
  };
export const ms = (min: number) =>
  whole(min, Number.MAX_SAFE_INTEGER, `a whole number of milliseconds, at least ${min}`);

/** A duration (`30s`, `2m`) from 1 s to 1 h, in milliseconds. */
export const storageTimeout: Read<number> = (t, from) => {
  const secs = durationSecs(t);
  if (secs === undefined || secs < 1 || secs > 3600)
    throw usage(`${from} must be a duration from 1s to 1h, got ${JSON.stringify(t)}`);
  return secs * 1000;
};

export const location: Read<string> = (t, from) => {
  if (!LOCATION_NAME.test(t))
    throw usage(`${from} must be 1..64 characters of A-Z a-z 0-9 : . -, got ${JSON.stringify(t)}`);
  return t;
};

export const hostName: Read<string> = (t, from) => {
  const h = t.toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h))
    throw usage(`${from} takes a host name without port or scheme (e.g. lite.internal), got ${JSON.stringify(h)}`);
  return h;
};

export const postgresUrl: Read<string> = (t, from) => {
  if (!isPostgresUrl(t)) throw usage(`${from} must be a postgres://USER@HOST[:PORT]/DATABASE URL`);
  return t;
};

export const thread: Read<"worker" | "main"> = (t, from) => {
  if (t !== "worker" && t !== "main") throw usage(`${from} must be worker or main, got ${JSON.stringify(t)}`);
  return t;
};
