/**
 * `svc token create --from-file`: the file is an access-token request (protocol.md §3.5),
 * checked field by field before any request, like an apply spec: an unknown field (a typo
 * such as `basinz`) or a value of the wrong shape is an error naming its JSON path (exit 7),
 * never a token that silently covers nothing.
 */
import { readFileSync } from "node:fs";
import { clientError } from "../../../errors.js";
import { type AccessTokenInfo, OPERATIONS } from "../../../types.js";
import { usageError } from "../../failure.js";

type Obj = Record<string, unknown>;

export function readTokenFile(file: string): Partial<AccessTokenInfo> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
  } catch (e) {
    throw usageError(`--from-file ${file}: ${(e as Error).message}`);
  }
  const fail = (where: string, message: string): never => {
    throw clientError("bad_input", `--from-file ${file}: ${where}: ${message}`);
  };
  const top = fields(doc, "(top level)", ["id", "scope", "expires_at", "auto_prefix_streams"], fail);
  if (top.id !== undefined && typeof top.id !== "string") fail("id", "must be a string");
  if (top.expires_at !== undefined && top.expires_at !== null && typeof top.expires_at !== "string")
    fail("expires_at", "must be an RFC 3339 time or null");
  if (top.auto_prefix_streams !== undefined && typeof top.auto_prefix_streams !== "boolean")
    fail("auto_prefix_streams", "must be true or false");
  if (top.scope !== undefined) checkScope(top.scope, fail);
  return top as Partial<AccessTokenInfo>;
}

function fields(v: unknown, where: string, allowed: string[], fail: (where: string, message: string) => never): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(where, "must be an object");
  for (const k of Object.keys(v as Obj)) {
    if (!allowed.includes(k))
      fail(
        where === "(top level)" ? k : `${where}.${k}`,
        `unknown field ${JSON.stringify(k)} (allowed: ${allowed.join(", ")})`,
      );
  }
  return v as Obj;
}

function checkScope(scope: unknown, fail: (where: string, message: string) => never): void {
  const s = fields(scope, "scope", ["basins", "streams", "access_tokens", "op_groups", "ops"], fail);
  for (const key of ["basins", "streams", "access_tokens"]) {
    const set = s[key];
    if (set === undefined || set === null) continue;
    const o = fields(set, `scope.${key}`, ["exact", "prefix"], fail);
    const keys = Object.keys(o);
    if (keys.length !== 1 || typeof o[keys[0]!] !== "string")
      fail(`scope.${key}`, 'must be {"exact": NAME} or {"prefix": PREFIX}');
  }
  if (s.op_groups !== undefined && s.op_groups !== null) {
    const groups = fields(s.op_groups, "scope.op_groups", ["account", "basin", "stream"], fail);
    for (const [level, rw] of Object.entries(groups)) {
      if (rw === null) continue;
      const p = fields(rw, `scope.op_groups.${level}`, ["read", "write"], fail);
      for (const [k, v] of Object.entries(p))
        if (typeof v !== "boolean") fail(`scope.op_groups.${level}.${k}`, "must be true or false");
    }
  }
  if (s.ops !== undefined && s.ops !== null) {
    if (!Array.isArray(s.ops)) fail("scope.ops", "must be an array of operation names");
    (s.ops as unknown[]).forEach((op, i) => {
      if (typeof op !== "string" || !(OPERATIONS as readonly string[]).includes(op))
        fail(`scope.ops[${i}]`, `unknown operation ${JSON.stringify(op)} (operations: ${OPERATIONS.join(", ")})`);
    });
  }
}
