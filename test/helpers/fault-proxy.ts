/**
 * A small TCP fault proxy on loopback (docs/design/reliability.md, "The shared harness"): forwards
 * connections to a target and, on command, cuts them — at once, after N more bytes from the server
 * (so frames are cut mid-way), or at random points — or black-holes them (bytes stop flowing, the
 * socket stays open).
 */
import net from "node:net";

export interface FaultProxy {
  port: number;
  url: string;
  /** Connections opened so far. */
  readonly accepted: number;
  /** Connections cut by the proxy so far. */
  readonly cuts: number;
  /** Bytes forwarded from the server so far. */
  readonly serverBytes: number;
  /** Bytes received from clients so far (black-holed ones included). */
  readonly clientBytes: number;
  /** Cuts every open connection now. */
  cutAll(): void;
  /** Cuts each connection after it has carried `n` more bytes from the server. */
  cutAfterServerBytes(n: number): void;
  /**
   * Gives every NEW connection a budget of server bytes (from `budget()`) after which it is cut
   * (reset); undefined stops. `delivered`: the client first receives every byte of its budget,
   * then the connection ends. A reset also throws away what sits in the socket buffers, and
   * how much that is depends on how far the server runs ahead of the client, so only a
   * delivered budget promises the client a given amount per connection.
   */
  cutEachConnectionAfter(budget: (() => number) | undefined, opts?: { delivered?: boolean }): void;
  /** Stops forwarding (both ways) on current and new connections until `heal()`. */
  blackHole(): void;
  heal(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
  budget: number | undefined;
}

export async function startFaultProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let accepted = 0;
  let cuts = 0;
  let serverBytes = 0;
  let clientBytes = 0;
  let holes = false;
  let perConnection: (() => number) | undefined;
  let delivered = false;

  const cut = (p: Pair): void => {
    if (!pairs.delete(p)) return;
    cuts++;
    p.client.resetAndDestroy();
    p.server.destroy();
  };

  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(targetPort, targetHost);
    const pair: Pair = { client, server: upstream, budget: perConnection?.() };
    pairs.add(pair);
    const drop = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.on("data", (chunk: Buffer) => {
      clientBytes += chunk.length;
      if (!holes && !upstream.write(chunk)) client.pause();
    });
    upstream.on("drain", () => client.resume());
    upstream.on("data", (chunk: Buffer) => {
      if (holes) return;
      serverBytes += chunk.length;
      if (pair.budget !== undefined) {
        if (chunk.length >= pair.budget) {
          const part = chunk.subarray(0, pair.budget);
          pair.budget = undefined;
          if (delivered) {
            // Everything up to the budget reaches the client, then the connection ends.
            pairs.delete(pair);
            cuts++;
            upstream.destroy();
            client.end(part);
            return;
          }
          if (part.length > 0) client.write(part);
          cut(pair);
          return;
        }
        pair.budget -= chunk.length;
      }
      if (!client.write(chunk)) upstream.pause();
    });
    client.on("drain", () => upstream.resume());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get cuts() {
      return cuts;
    },
    get serverBytes() {
      return serverBytes;
    },
    get clientBytes() {
      return clientBytes;
    },
    cutAll() {
      for (const p of [...pairs]) cut(p);
    },
    cutAfterServerBytes(n) {
      for (const p of pairs) p.budget = n;
    },
    cutEachConnectionAfter(budget, opts) {
      perConnection = budget;
      delivered = opts?.delivered === true;
    },
    blackHole() {
      holes = true;
    },
    heal() {
      holes = false;
    },
    close() {
      for (const p of [...pairs]) {
        p.client.destroy();
        p.server.destroy();
      }
      pairs.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
