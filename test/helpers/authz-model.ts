/**
 * The authorization rules of protocol.md §9.2–§9.3, written again from the spec for the
 * tests (it imports nothing from src/lite): a token's permitted operations are the union of
 * `ops` and every op of every enabled group; a request is allowed only when its operation is
 * permitted and each resource it names lies in the matching set (`exact` compares whole
 * names, `prefix` uses starts-with, null/absent/`{"exact": ""}` match nothing,
 * `{"prefix": ""}` matches everything).
 */
export type ModelSet = null | undefined | { exact: string } | { prefix: string };

export interface ModelScope {
  basins?: ModelSet;
  streams?: ModelSet;
  access_tokens?: ModelSet;
  op_groups?: Partial<Record<"account" | "basin" | "stream", { read?: boolean; write?: boolean } | null>> | null;
  ops?: string[] | null;
}

export interface ModelRequest {
  op: string;
  basin?: string;
  stream?: string;
  tokenId?: string;
}

export const GROUP_OPS: Record<string, Record<"read" | "write", string[]>> = {
  account: {
    read: [
      "list-basins",
      "get-basin-config",
      "list-access-tokens",
      "account-metrics",
      "list-locations",
      "get-default-location",
    ],
    write: [
      "create-basin",
      "delete-basin",
      "reconfigure-basin",
      "issue-access-token",
      "revoke-access-token",
      "set-default-location",
    ],
  },
  basin: {
    read: ["list-streams", "get-stream-config", "basin-metrics"],
    write: ["create-stream", "delete-stream", "reconfigure-stream"],
  },
  stream: { read: ["check-tail", "read", "stream-metrics"], write: ["append", "trim", "fence"] },
};

export function modelOps(scope: ModelScope): Set<string> {
  const ops = new Set<string>(scope.ops ?? []);
  for (const [level, perms] of Object.entries(scope.op_groups ?? {})) {
    if (perms?.read) for (const op of GROUP_OPS[level]!.read) ops.add(op);
    if (perms?.write) for (const op of GROUP_OPS[level]!.write) ops.add(op);
  }
  return ops;
}

export function modelMatches(set: ModelSet, name: string): boolean {
  if (!set) return false;
  if ("exact" in set) return set.exact !== "" && set.exact === name;
  return name.startsWith(set.prefix);
}

/** Allowed (true) or 403 (false). `extraOps` are further ops the request needs (fence, trim). */
export function modelAllows(scope: ModelScope, req: ModelRequest, extraOps: string[] = []): boolean {
  const ops = modelOps(scope);
  if (![req.op, ...extraOps].every((op) => ops.has(op))) return false;
  if (req.basin !== undefined && !modelMatches(scope.basins, req.basin)) return false;
  if (req.stream !== undefined && !modelMatches(scope.streams, req.stream)) return false;
  if (req.tokenId !== undefined && !modelMatches(scope.access_tokens, req.tokenId)) return false;
  return true;
}
