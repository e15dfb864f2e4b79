/**
 * A request's access decision (lite/auth/decision.ts), made once from what its route declares:
 * the operation (or the ones its state chooses between), the operations its content may add,
 * and the resources its head and body name. What follows asks the decision; it never judges
 * the scope again.
 */
import { describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import { decide, type Principal } from "../../../src/lite/auth/decision.js";
import { noGroups } from "../../../src/lite/auth/scope.js";
import type { ResourceSet, StoredToken } from "../../../src/lite/storage/types.js";
import type { Operation } from "../../../src/types.js";

const ALL: ResourceSet = { kind: "prefix", value: "" };

function holder(ops: Operation[], sets: Partial<Record<"basins" | "streams" | "accessTokens", ResourceSet>> = {}) {
  const token: StoredToken = {
    id: "t",
    keyId: "k",
    hash: "h",
    scope: { basins: ALL, streams: ALL, accessTokens: ALL, opGroups: noGroups(), ops, ...sets },
    expiresAt: null,
    autoPrefixStreams: false,
    createdAt: "2025-01-01T00:00:00Z",
  };
  return { kind: "token", token } as const satisfies Principal;
}

/** The 403 message `f` throws (it must throw one). */
async function refusal(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(SvcError);
    expect(e).toMatchObject({ code: "permission_denied", status: 403 });
    return (e as Error).message;
  }
  throw new Error("expected a 403");
}

describe("decide", () => {
  it("refuses an operation the token lacks, then a resource outside its set (§9.3 order)", async () => {
    expect(await refusal(() => decide(holder(["read"]), { ops: ["append"], names: { basin: "b" } }))).toBe(
      'access token "t" does not permit operation `append`',
    );
    const narrow = holder(["append"], { basins: { kind: "exact", value: "a" } });
    expect(await refusal(() => decide(narrow, { ops: ["append"], names: { basin: "b", stream: "s" } }))).toBe(
      'access token "t" does not cover basin "b"',
    );
    await expect(decide(narrow, { ops: ["append"], names: { basin: "a", stream: "s" } })).resolves.toBeDefined();
  });

  it("of the operations a state chooses between, one must be allowed; the store then asks which", async () => {
    const ops: Operation[] = ["create-stream", "reconfigure-stream"];
    expect(await refusal(() => decide(holder(["read"]), { ops, names: {} }))).toBe(
      'access token "t" does not permit operation `create-stream`',
    );
    const creator = await decide(holder(["create-stream"]), { ops, names: { stream: "s" } });
    expect(() => creator.require("create-stream")).not.toThrow();
    expect(await refusal(() => creator.require("reconfigure-stream"))).toBe(
      'access token "t" does not permit operation `reconfigure-stream`',
    );
  });

  it("reads a body that names resources only once the head is allowed, and judges what it names", async () => {
    let read = 0;
    const body = async () => {
      read++;
      return { basin: "other" };
    };
    await refusal(() => decide(holder(["read"]), { ops: ["create-basin"], names: {}, body }));
    expect(read).toBe(0);
    const mine = holder(["create-basin"], { basins: { kind: "prefix", value: "mine-" } });
    expect(await refusal(() => decide(mine, { ops: ["create-basin"], names: {}, body }))).toBe(
      'access token "t" does not cover basin "other"',
    );
    expect(read).toBe(1);
  });

  it("decides the operations content may add with the request, and refuses questions it did not declare", async () => {
    const access = await decide(holder(["append", "fence"]), {
      ops: ["append"],
      also: ["fence", "trim"],
      names: { basin: "b", stream: "s" },
    });
    expect(() => access.require("fence")).not.toThrow();
    expect(await refusal(() => access.require("trim"))).toBe('access token "t" does not permit operation `trim`');
    expect(() => access.require("delete-basin")).toThrow(/not declared/);
  });

  it("allows everything declared to the root and to an open server, and still reads the body", async () => {
    for (const p of [{ kind: "root" }, { kind: "open" }] as const) {
      let read = false;
      const access = await decide(p, {
        ops: ["issue-access-token"],
        also: ["trim"],
        names: {},
        body: async () => {
          read = true;
          return { tokenId: "x" };
        },
      });
      expect(read).toBe(true);
      expect(() => access.require("trim")).not.toThrow();
      expect(() => access.require("append")).toThrow(/not declared/);
      expect(access.covers("basins", "anything")).toBe(true);
    }
  });

  it("lists only what the token may see", async () => {
    const access = await decide(holder(["list-basins"], { basins: { kind: "exact", value: "one" } }), {
      ops: ["list-basins"],
      names: {},
    });
    expect(access.listing("basins", "")).toEqual({ exact: "one" });
    expect(access.listing("basins", "two")).toBeUndefined();
    expect(access.covers("basins", "one")).toBe(true);
    expect(access.covers("basins", "two")).toBe(false);
  });
});
