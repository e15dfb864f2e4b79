/**
 * svc lite's settings are declared once (src/lite/option-table.ts), and everything else follows
 * from that table: `svc lite --help` lists its flags, docs/server.md lists its environment
 * variables (this test fails when the page and the table disagree, and prints the list the table
 * makes), and parseLiteArgs gives each default when nothing is set and reads each variable.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS, type Setting } from "../../../src/lite/option-table.js";
import { parseLiteArgs, USAGE } from "../../../src/lite/options.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const settings = Object.entries(SETTINGS) as [string, Setting<unknown>][];

/** The line of docs/server.md's "Environment variables" that a setting read from the environment gets. */
function docLine(s: Setting<unknown>): string {
  const shown = s.shown ?? (s.kind === "value" && s.default !== undefined ? String(s.default) : undefined);
  const notes = [s.unit, shown === undefined ? undefined : `default ${shown}`].filter((n) => n !== undefined);
  const flag = s.flag === undefined ? "" : `as \`--${s.flag}\`: `;
  return `- \`${s.env}\`: ${flag}${s.doc}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

/** The bullets of a section of a markdown page, each joined onto one line. */
function bullets(page: string, heading: string): string[] {
  const at = page.indexOf(`\n## ${heading}\n`);
  if (at < 0) return [];
  const section = page
    .slice(at + 1)
    .split(/\n## /)[0]!
    .split("\n")
    .slice(1);
  const out: string[] = [];
  for (const line of section) {
    if (line.startsWith("- ")) out.push(line);
    else if (line.startsWith("  ") && out.length > 0 && line.trim() !== "") out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

describe("svc lite's settings table", () => {
  it("docs/server.md lists exactly the table's environment variables, as the table documents them", () => {
    const page = readFileSync(join(ROOT, "docs/server.md"), "utf8");
    const expected = settings.filter(([, s]) => s.env !== undefined).map(([, s]) => docLine(s));
    expect(bullets(page, "Environment variables"), `the section should read:\n\n${expected.join("\n")}\n`).toEqual(
      expected,
    );
  });

  it("every SVC_LITE_ variable the docs name is in the table (or arms the test faults)", () => {
    const known = new Set(settings.map(([, s]) => s.env));
    const named = new Set<string>();
    for (const page of ["docs/server.md", "docs/postgres.md", "docs/security.md", "docs/architecture.md"])
      for (const m of readFileSync(join(ROOT, page), "utf8").matchAll(/\bSVC_LITE_[A-Z_]+/g)) named.add(m[0]);
    const unknown = [...named].filter((n) => !known.has(n) && !/^SVC_LITE_TEST_FAULTS?$/.test(n));
    expect(unknown).toEqual([]);
  });

  it("a variable is read only for a setting that takes a value, and documented settings have a line of help", () => {
    for (const [name, s] of settings) {
      if (s.env !== undefined) expect(s.kind, name).toBe("value");
      if (s.env !== undefined) expect(s.doc, name).toBeDefined();
      expect(s.flag !== undefined || s.env !== undefined, name).toBe(true);
    }
  });

  it("svc lite --help lists every documented flag of the table, and no other", () => {
    const listed = [...USAGE.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]);
    const documented = settings.filter(([, s]) => s.flag !== undefined && s.doc !== undefined).map(([, s]) => s.flag);
    expect(listed).toEqual(documented);
    const flat = USAGE.replace(/\s+/g, " ");
    expect(flat).toContain("instead of generating one (also SVC_LITE_ROOT_TOKEN_FILE)");
    expect(flat).toContain("a read min(5s, D) (default 10s)");
  });

  it("nothing set: every option is its default", () => {
    const o = parseLiteArgs([], { HOME: "/home/u" });
    expect(o).toMatchObject({
      host: SETTINGS.host.default,
      port: SETTINGS.port.default,
      dataDir: "/home/u/.local/share/svc/lite",
      location: "local",
      sweepMs: 2000,
      deleteGraceMs: 1000,
      metricsFlushMs: 10_000,
      appendBudgetBytes: 128 << 20,
      thread: "worker",
      timeouts: { headersMs: 30_000, idleMs: 300_000, bodyGraceMs: 10_000, ackStallMs: 30_000, heartbeatMs: 15_000 },
      pgTimings: { pollMs: 1000, cacheMs: 1000, leaseMs: 3000, migrationWaitMs: 60_000 },
      tlsSelf: { validMs: 365 * 86_400_000, renewMs: 30 * 86_400_000, checkMs: 3_600_000 },
    });
  });

  it("each variable sets its option; a flag wins over its variable", () => {
    const env = {
      HOME: "/home/u",
      SVC_LITE_SWEEP_MS: "11",
      SVC_LITE_DELETE_GRACE_MS: "0",
      SVC_LITE_METRICS_FLUSH_MS: "12",
      SVC_LITE_HEADERS_TIMEOUT_MS: "13",
      SVC_LITE_IDLE_TIMEOUT_MS: "14",
      SVC_LITE_BODY_GRACE_MS: "15",
      SVC_LITE_ACK_STALL_MS: "16",
      SVC_LITE_HEARTBEAT_MS: "300",
      SVC_LITE_APPEND_BUDGET_BYTES: "17",
      SVC_LITE_PG_POLL_MS: "18",
      SVC_LITE_PG_CACHE_MS: "0",
      SVC_LITE_SWEEP_LEASE_MS: "19",
      SVC_LITE_PG_MIGRATION_WAIT_MS: "20",
      SVC_LITE_TLS_SELF_VALID_MS: "21",
      SVC_LITE_TLS_SELF_RENEW_MS: "0",
      SVC_LITE_TLS_SELF_CHECK_MS: "22",
      SVC_LITE_THREAD: "main",
      SVC_LITE_ROOT_TOKEN_FILE: "/env/token",
      SVC_LITE_INIT_FILE: "/env/init.json",
    };
    expect(parseLiteArgs([], env)).toMatchObject({
      sweepMs: 11,
      deleteGraceMs: 0,
      metricsFlushMs: 12,
      timeouts: { headersMs: 13, idleMs: 14, bodyGraceMs: 15, ackStallMs: 16, heartbeatMs: 300 },
      appendBudgetBytes: 17,
      pgTimings: { pollMs: 18, cacheMs: 0, leaseMs: 19, migrationWaitMs: 20 },
      tlsSelf: { validMs: 21, renewMs: 0, checkMs: 22 },
      thread: "main",
      rootTokenFile: "/env/token",
      initFile: "/env/init.json",
    });
    expect(parseLiteArgs(["--root-token-file", "/flag/token"], env).rootTokenFile).toBe("/flag/token");
  });

  it("PostgreSQL: the URL, its password file and PGPASSWORD/PGUSER come from the environment too", () => {
    const o = parseLiteArgs([], {
      SVC_LITE_STORAGE: "postgres://db.internal/svc",
      PGPASSWORD: "pw",
      PGUSER: "svc",
    });
    expect(o.dataDir).toBeUndefined();
    expect(o.postgres).toMatchObject({
      hosts: [{ host: "db.internal", port: 5432 }],
      user: "svc",
      password: "pw",
      database: "svc",
    });
    expect(o.postgres).toMatchObject({ poolSize: 10, writeTimeoutMs: 10_000, passwordOnCommandLine: false });
    const flagged = parseLiteArgs(["--storage", "postgres://u:secret@h/db", "--storage-timeout", "30s"], {});
    expect(flagged.postgres).toMatchObject({ user: "u", password: "secret", writeTimeoutMs: 30_000 });
    expect(flagged.postgres?.passwordOnCommandLine).toBe(true);
    expect(parseLiteArgs(["--storage", "postgres://h/db"], {}).postgres?.user).toBe("postgres");
  });
});
