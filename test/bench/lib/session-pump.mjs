/** One append session kept busy, for the benches of lite on PostgreSQL (pg-scale.mjs, pg-nodes.mjs). */

const MIB = 1024 * 1024;
const record = { headers: [], body: new Uint8Array(1024 - 8).fill(0x61) };
/** 100 records of 1 KiB (with their framing). */
const batch100 = { records: Array.from({ length: 100 }, () => record) };

/** Keeps up to `depth` batches of 100 1-KiB records in flight on one session until `until` (performance.now()); returns records acked. */
export async function pump(stream, until, depth = 8) {
  const session = await stream.appender({ maxInflightBytes: 8 * MIB });
  let acked = 0;
  const inflight = new Set();
  while (performance.now() < until) {
    const p = session.append(batch100).then(() => {
      acked += 100;
      inflight.delete(p);
    });
    inflight.add(p);
    if (inflight.size >= depth) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  await session.close();
  return acked;
}
