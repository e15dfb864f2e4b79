/** Access tokens as the store keeps them, for auth (auth/access.ts decides what they allow). */
import type { TokenBook } from "../auth/access.js";
import type { Catalog } from "../storage/seams.js";

export function tokenBook(catalog: Catalog): TokenBook {
  return {
    byKey: (keyId) => catalog.getTokenByKey(keyId),
    byId: (id) => catalog.getToken(id),
    list: (prefix, after, limit) => catalog.listTokens(prefix, after, limit),
    add: (token) => catalog.change({ op: "putToken", token }),
    remove: (id, keyId) => catalog.change({ op: "deleteToken", id, keyId }),
  };
}
