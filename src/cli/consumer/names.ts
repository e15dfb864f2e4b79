/**
 * The names of consumers and of the streams that keep their positions (docs/consumers.md):
 * `_svc-consumer/<stream>/<consumer>` in the stream's basin. A consumer's name holds no `/`, so
 * such a name splits at its last `/` whatever the stream's name holds.
 */
import { usageError } from "../failure.js";

/** The companion streams' names begin with this. */
export const POSITIONS_PREFIX = "_svc-consumer/";

const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What is wrong with a consumer name, or undefined. */
export function consumerNameProblem(name: string): string | undefined {
  if (NAME_RULE.test(name)) return undefined;
  return `invalid consumer name ${JSON.stringify(name)}: 1 to 64 characters of letters, digits, '.', '_' and '-', beginning with a letter or digit`;
}

export function checkConsumerName(name: string): string {
  const problem = consumerNameProblem(name);
  if (problem !== undefined) throw usageError(problem);
  return name;
}

/** Whether a stream keeps a consumer's position (one of svc's own, left alone by `apply --prune`). */
export function isPositionStream(name: string): boolean {
  return name.startsWith(POSITIONS_PREFIX);
}

/** The companion stream of `consumer` of `stream`: `_svc-consumer/<stream>/<consumer>`. */
export function positionStream(stream: string, consumer: string): string {
  if (isPositionStream(stream))
    throw usageError(`${JSON.stringify(stream)} keeps a consumer's position itself; it has no consumers`);
  const name = `${POSITIONS_PREFIX}${stream}/${consumer}`;
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes > 512)
    throw usageError(
      `the stream's name is too long to keep consumers for: ${POSITIONS_PREFIX}<stream>/<consumer> must fit in a stream name (512 bytes; it would be ${bytes})`,
    );
  return name;
}

/** The stream and consumer a companion stream's name stands for; undefined for any other name. */
export function parsePositionStream(name: string): { stream: string; consumer: string } | undefined {
  if (!isPositionStream(name)) return undefined;
  const rest = name.slice(POSITIONS_PREFIX.length);
  const slash = rest.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const consumer = rest.slice(slash + 1);
  if (consumerNameProblem(consumer) !== undefined) return undefined;
  return { stream: rest.slice(0, slash), consumer };
}
