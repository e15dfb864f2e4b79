/**
 * What every connection of a node sets for its session, and the schema it works in.
 *
 * The search path: PostgreSQL resolves an unqualified name (a function such as `nextval`, an
 * operator, a table) through `search_path`, and by default that includes schema `public`, in
 * which PUBLIC may create objects up to PostgreSQL 14 (and wherever an operator granted it
 * again). A role that may only connect could then plant `public.nextval(text)`, a better match
 * for a quoted name than `pg_catalog.nextval(regclass)`, and lite ran it as its own role. So
 * every session of a node has the path `<lite's schema>, pg_catalog, pg_temp` (nothing else
 * visible; lite's schema first, where its tables are made), the built-in functions lite calls
 * are qualified (`pg_catalog.nextval`), the append function carries that path itself (schema.ts
 * migration 6), and a node refuses to start on a schema that PUBLIC may create in
 * (`checkSchema`): no path can protect what stays unqualified there (operators, tables).
 *
 * Deadlines on the server's side, so that no transaction outlives its node's write deadline D
 * (`--storage-timeout`) when the node is cut off, frozen or gone (the server held its row locks
 * until the OS's TCP keepalive gave up, 2 h, and every append to the stream through healthy
 * nodes failed): `idle_in_transaction_session_timeout` D/2 ends a session that sits inside a
 * transaction (a node sends a transaction's statements back to back); `lock_timeout` 3D/4 fails
 * a statement that waits longer for another's lock with an answer, so that it is reported as
 * not applied rather than as unknown (its client's deadline, D from when it queued, comes
 * later); TCP keepalives let the server notice a silent peer within about 11 s.
 */
import type pg from "pg";
import { SvcError } from "../../../errors.js";

/** How long the server lets a node's session sit idle inside a transaction (ms): D / 2, at least 1 s. */
function txIdleMs(writeTimeoutMs: number): number {
  return Math.max(1_000, Math.floor(writeTimeoutMs / 2)); // the migration lock is retried every 200 ms in one
}

/** The server's TCP keepalive: first probe after 5 s of silence, then every 2 s; 3 unanswered end it. */
const SERVER_KEEPALIVE = { idle: 5, interval: 2, count: 3 };

/** An identifier, quoted for SQL. */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The search path of every session of a node working in `schema`. */
function searchPath(schema: string): string {
  return `${quoteIdent(schema)},pg_catalog,pg_temp`;
}

/** A value for the startup packet's `options`: backslash and space escaped. */
function optionValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/ /g, "\\ ");
}

/**
 * The `options` of a node's connection: durable commits, the server's deadlines and the fixed
 * search path (once the schema is known: the first connection at start looks it up).
 */
export function sessionOptions(c: { schema?: string | undefined; writeTimeoutMs: number }): string {
  const settings: [string, string][] = [
    ["synchronous_commit", "on"],
    ["idle_in_transaction_session_timeout", String(txIdleMs(c.writeTimeoutMs))],
    ["lock_timeout", String(Math.max(100, Math.floor((c.writeTimeoutMs * 3) / 4)))],
    ["tcp_keepalives_idle", String(SERVER_KEEPALIVE.idle)],
    ["tcp_keepalives_interval", String(SERVER_KEEPALIVE.interval)],
    ["tcp_keepalives_count", String(SERVER_KEEPALIVE.count)],
  ];
  if (c.schema !== undefined) settings.push(["search_path", searchPath(c.schema)]);
  return settings.map(([k, v]) => `-c ${k}=${optionValue(v)}`).join(" ");
}

/**
 * lite's schema: where its tables are (the first schema of the role's default search path that
 * has `svc_schema`), else where they will be made (`current_schema()`). Refuses a schema PUBLIC
 * may create in; warns of other roles that may (but lite's own, the ones it belongs to, superusers
 * and the database's owner): they could plant objects that lite's role resolves.
 * Then fixes `client`'s own search path.
 */
export async function checkSchema(client: pg.Client, where: string, log: (m: string) => void): Promise<string> {
  const { rows } = await client.query<{ schema: string | null }>(
    `SELECT coalesce(
       (SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = pg_catalog.to_regclass('svc_schema')),
       pg_catalog.current_schema()) AS schema`,
  );
  const schema = rows[0]?.schema ?? null;
  if (schema === null)
    throw refused(
      `the role's search path at ${where} names no schema that exists: create one for lite (CREATE SCHEMA svc AUTHORIZATION <role>) and set the role's search_path to it`,
    );
  const { rows: others } = await client.query<{ grantee: string }>(
    `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(r.rolname) END AS grantee
     FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
     LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
     WHERE n.nspname = $1 AND a.privilege_type = 'CREATE'
       AND (a.grantee = 0 OR NOT (r.rolsuper OR r.rolname = 'pg_database_owner'
            OR pg_catalog.pg_has_role(CURRENT_USER, a.grantee, 'MEMBER')))
     ORDER BY 1`,
    [schema],
  );
  const grantees = others.map((o) => o.grantee);
  const q = quoteIdent(schema);
  if (grantees.includes("PUBLIC"))
    throw refused(
      `every role may create objects in schema ${q} at ${where} (PostgreSQL 14's default for public), so any role that may connect could plant functions or operators that lite's role would run: ` +
        `REVOKE CREATE ON SCHEMA ${q} FROM PUBLIC (or give lite a schema of its own) and start again`,
    );
  if (grantees.length > 0)
    log(
      `warning: roles ${grantees.join(", ")} may create objects in lite's schema ${q} at ${where}: whoever holds them can plant operators that lite's role would run; revoke CREATE unless they are trusted as lite's role is`,
    );
  await client.query("SELECT pg_catalog.set_config('search_path', $1, false)", [searchPath(schema)]);
  return schema;
}

function refused(message: string): SvcError {
  return new SvcError({ code: "unavailable", origin: "server", status: 503, message: `cannot start: ${message}` });
}
