/**
 * fsync audit (docs/design/reliability.md, "Crash safety": no ack before its sync): svc lite runs
 * under `strace -f -tt -T -y`, one writer appends 80 times, one request at a time (so the last
 * write to data.mdb before an ack is that ack's own commit), and the trace is checked: every
 * acknowledgement written to a socket comes after a completed fdatasync/fsync/msync of data.mdb
 * that started after that write ended. The clock is strace's own, so the order is the kernel's, not
 * the test's. (Concurrent writers share commits and syncs, and strace cannot tell whose write is
 * whose; the crash tests cover them.) What it does not catch: dropping lite's own wait for
 * `env.flushed` goes unseen at this load, because lmdb-js resolves a lone commit only after its
 * sync anyway; the wait matters when commits overlap. Skipped (with a message) when strace is not
 * installed; .ci/run installs it.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SVC_BIN } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const haveStrace = spawnSync("strace", ["-V"]).status === 0;
if (!haveStrace) process.stderr.write("SKIPPED the fsync audit: strace is not installed (.ci/run installs it)\n");

interface Event {
  at: number;
  end: number;
  kind: "write" | "sync" | "ack";
}

/** `HH:MM:SS.micro` → seconds. */
function seconds(t: string): number {
  const [h, m, s] = t.split(":");
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

/** Joins `<unfinished ...>` / `<... call resumed>` halves (another thread ran in between). */
function wholeLines(trace: string): string[] {
  const open = new Map<string, string>();
  const out: string[] = [];
  for (const line of trace.split("\n")) {
    const pid = /^(\d+)\s/.exec(line)?.[1];
    if (pid === undefined) continue;
    if (line.endsWith("<unfinished ...>")) {
      open.set(pid, line.slice(0, -"<unfinished ...>".length));
      continue;
    }
    const resumed = /^\d+\s+\S+\s+<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) {
      const head = open.get(pid);
      open.delete(pid);
      if (head !== undefined) out.push(head + resumed[1]);
      continue;
    }
    out.push(line);
  }
  return out;
}

function parse(trace: string): Event[] {
  const events: Event[] = [];
  // LMDB writes its meta page through a second descriptor opened O_DSYNC: such a write is
  // its own sync (it returns once the data is stable), so it counts as a sync, not a write.
  const dsync = new Set<string>();
  for (const line of wholeLines(trace)) {
    const opened = /openat\(.*data\.mdb", ([A-Z_|]+).*\)\s+=\s+(\d+)/.exec(line);
    if (opened) {
      if (/O_DSYNC|O_SYNC/.test(opened[1]!)) dsync.add(opened[2]!);
      continue;
    }
    const m = /^\d+\s+(\d\d:\d\d:\d\d\.\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+).*<([\d.]+)>$/.exec(line);
    if (!m) continue;
    const [, time, call, args, ret] = m;
    const at = seconds(time!);
    const end = at + Number(m[5]);
    if (Number(ret) < 0) continue;
    const fd = /^(\d+)</.exec(args!)?.[1];
    if (/data\.mdb>/.test(args!) && /^(pwrite64|pwritev|write|writev)$/.test(call!))
      events.push({ at, end, kind: dsync.has(fd!) ? "sync" : "write" });
    else if (/data\.mdb>/.test(args!) && /^(fdatasync|fsync|msync)$/.test(call!))
      events.push({ at, end, kind: "sync" });
    else if (/socket:/.test(args!) && /(writev|write|sendmsg)$/.test(call!) && args!.includes('\\"seq_num\\"'))
      events.push({ at, end, kind: "ack" });
  }
  return events.sort((a, b) => a.at - b.at);
}

const dir = haveStrace ? scratchDir("svc-fsync-") : "";
let child: ReturnType<typeof spawn> | undefined;
afterAll(() => {
  try {
    if (child?.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    /* gone */
  }
});

describe.skipIf(!haveStrace)("fsync audit under strace", () => {
  it("no acknowledgement is written before the sync that covers its write", async () => {
    const tracePath = join(dir, "trace");
    child = spawn(
      "strace",
      [
        "-f",
        "-tt",
        "-T",
        "-y",
        "-s",
        "64",
        "-e",
        "trace=openat,pwrite64,pwritev,write,writev,sendmsg,fdatasync,fsync,msync",
        "-o",
        tracePath,
        process.execPath,
        SVC_BIN,
        "lite",
        "--port",
        "0",
        "--data-dir",
        join(dir, "data"),
      ],
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    let out = "";
    const started = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("lite under strace did not start in 30 s")), 30_000);
      child!.stdout!.on("data", (c: Buffer) => {
        out += c;
        const url = /SVC_ACCOUNT_ENDPOINT=(\S+)/.exec(out)?.[1];
        const token = /SVC_ACCESS_TOKEN=(\S+)/.exec(out)?.[1];
        if (url && token) {
          clearTimeout(timer);
          resolve({ url, token });
        }
      });
    });
    const headers = {
      authorization: `Bearer ${started.token}`,
      "content-type": "application/json",
      "svc-basin": "audit-basin",
    };
    expect(
      (
        await fetch(`${started.url}/v1/basins`, {
          method: "POST",
          headers,
          body: JSON.stringify({ basin: "audit-basin", config: { create_stream_on_append: true } }),
        })
      ).status,
    ).toBe(201);
    let acked = 0;
    for (let i = 0; i < 80; i++) {
      const r = await fetch(`${started.url}/v1/streams/s/records`, {
        method: "POST",
        headers,
        body: JSON.stringify({ records: [{ body: `audit-${i}` }] }),
      });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
      acked++;
    }
    // SIGTERM to the process group reaches lite itself (strace would only detach from it).
    const exited = new Promise((r) => child!.once("exit", r));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
    const events = parse(readFileSync(tracePath, "utf8"));
    const acks = events.filter((e) => e.kind === "ack");
    expect(acks.length, "every ack was seen in the trace").toBe(acked);
    let checked = 0;
    for (const ack of acks) {
      const lastWrite = events.filter((e) => e.kind === "write" && e.at < ack.at).pop();
      expect(lastWrite, "an ack with no write to data.mdb before it").toBeDefined();
      const covering = events.find((e) => e.kind === "sync" && e.at >= lastWrite!.end && e.end <= ack.at);
      expect(
        covering,
        `ack at ${ack.at.toFixed(6)} s: no completed sync between the last write (${lastWrite!.end.toFixed(6)}) and it`,
      ).toBeDefined();
      checked++;
    }
    console.log(
      `fsync audit: ${checked}/${acked} acks written after a completed sync of their write; ${events.filter((e) => e.kind === "sync").length} syncs`,
    );
  }, 120_000);
});
