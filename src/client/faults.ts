/**
 * The client's deliberate bug for checking the reliability checkers (test-fault.ts says which,
 * and only when the test-fault variables are set), made as lite's are (lite/store/faults.ts): a
 * wrapper around the real part, so the append session has no branch for it.
 */
import type { SvcError } from "../errors.js";
import type { AppendConnection } from "./append-connection.js";
import { AppendSession, type AppendSessionOptions } from "./append-session.js";
import type { OpenExchange } from "./session-frames.js";
import type { ClientTestFault } from "./test-fault.js";

/**
 * `resend-indefinite`: a connection lost with inputs in flight sends them again on the next one,
 * as if they had never been written (they may have been: the checker must see duplicates).
 */
class ResendingSession extends AppendSession {
  protected override onLost(conn: AppendConnection, err: SvcError): void {
    if (conn.inflight.length === 0) return super.onLost(conn, err);
    conn.draining = true;
    this.resendOnNewConnection(conn);
  }
}

/** An append session over `open` with the seeded bug `fault`. */
export function faultySession(fault: ClientTestFault, open: OpenExchange, opts: AppendSessionOptions): AppendSession {
  switch (fault) {
    case "resend-indefinite":
      return new ResendingSession(open, opts);
  }
}
