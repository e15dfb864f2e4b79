/**
 * Headers of svc lite's own that its clients read (docs/protocol.md, "svc lite's additions").
 * Other servers never send them; other clients ignore them.
 */

/**
 * On a check-tail answer: the stream's stored tail was found below what a node had
 * acknowledged (a failover to a standby that lacked records). Value: `from=<seq>, to=<seq>`.
 */
export const TAIL_WENT_BACK_HEADER = "svc-lite-tail-went-back";
