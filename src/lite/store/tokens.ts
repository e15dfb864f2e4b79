/** Access tokens as the store keeps them, for auth (auth/access.ts decides what they allow). */
import type { TokenBook } from "../auth/access.js";
import type { Catalog } from "../storage/seams.js";

export function tokenBook(catalog: Catalog): TokenBook {
  let own = 0;
  /** Every change made through this node counts once it is done, whatever its outcome. */
  const counted = <T>(change: Promise<T>): Promise<T> => change.finally(() => void own++);
  return {
    byKey: (keyId) => catalog.getTokenByKey(keyId),
    byId: (id) => catalog.getToken(id),
    list: (prefix, after, limit) => catalog.listTokens(prefix, after, limit),
    add: (token) => counted(catalog.change({ op: "putToken", token })),
    remove: (id, keyId) => counted(catalog.change({ op: "deleteToken", id, keyId })),
    get changes() {
      return own + (catalog.tokenChanges ?? 0);
    },
  };
}
