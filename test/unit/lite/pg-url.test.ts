/**
 * The PostgreSQL storage URL (storage/pg/config.ts): one host or several (libpq's
 * `HOST1[:PORT1],HOST2[:PORT2]`, a primary and its standbys), `target_session_attrs`, and a clear
 * usage error for what lite cannot honour rather than a parameter ignored without a word.
 */
import { describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import { hostName, parsePgUrl, redactedUrl } from "../../../src/lite/storage/pg/config.js";

const opts = { poolSize: 4, writeTimeoutMs: 1_000, password: undefined, user: "postgres", onCommandLine: false };
const parse = (url: string) => parsePgUrl(url, opts);
const refusal = (url: string): string => {
  try {
    parse(url);
  } catch (e) {
    expect(e).toBeInstanceOf(SvcError);
    expect((e as SvcError).code).toBe("usage");
    return (e as SvcError).message;
  }
  throw new Error(`${url} was accepted`);
};

describe("the storage URL", () => {
  it("takes one host, with the default port", () => {
    const c = parse("postgres://u@db.internal/svc");
    expect(c.hosts).toEqual([{ host: "db.internal", port: 5432 }]);
    expect(c.requireWritable).toBe(true);
    expect(redactedUrl(c)).toBe("postgres://u@db.internal:5432/svc");
  });

  it("takes several hosts, each with its port or the default, IPv6 in brackets", () => {
    const c = parse("postgres://u:secret@10.0.0.1:5432,10.0.0.2,[::1]:6543/db?target_session_attrs=read-write");
    expect(c.hosts).toEqual([
      { host: "10.0.0.1", port: 5432 },
      { host: "10.0.0.2", port: 5432 },
      { host: "::1", port: 6543 },
    ]);
    expect(c.user).toBe("u");
    expect(c.password).toBe("secret");
    expect(c.database).toBe("db");
    expect(c.hosts.map(hostName)).toEqual(["10.0.0.1:5432", "10.0.0.2:5432", "[::1]:6543"]);
    expect(redactedUrl(c)).toBe("postgres://u@10.0.0.1:5432,10.0.0.2:5432,[::1]:6543/db");
    expect(redactedUrl(c)).not.toContain("secret");
  });

  it("reads target_session_attrs: read-write and primary check writability, any does not", () => {
    expect(parse("postgres://h1,h2/db?target_session_attrs=primary").requireWritable).toBe(true);
    expect(parse("postgres://h1,h2/db?target_session_attrs=any").requireWritable).toBe(false);
    expect(refusal("postgres://h1,h2/db?target_session_attrs=read-only")).toMatch(
      /target_session_attrs=read-only cannot serve a writer/,
    );
  });

  it("refuses parameters it would otherwise ignore, and a bad host in the list", () => {
    expect(refusal("postgres://h/db?sslmode=require")).toMatch(/unknown URL parameter "sslmode"/);
    expect(refusal("postgres://h1,h2:99999/db")).toMatch(/"h2:99999" is not a HOST\[:PORT\]/);
    expect(refusal("postgres://h1,/db")).toMatch(/is not a HOST\[:PORT\]/);
  });
});
