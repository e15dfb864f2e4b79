/**
 * Bug (issue 43, item 9): lite echoed the whole `Last-Event-ID` value in its 400 message. A
 * header of several KiB came back whole in the error (and in anything that logs it), so any
 * client could make lite repeat arbitrary text of its choosing at length.
 *
 * Now the message quotes at most the first 40 characters of the value, and says it was cut.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
const basin = uniqueBasin("lei");
beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, ["s"]);
});
afterAll(async () => {
  await lite?.stop();
});

describe("a malformed Last-Event-ID", () => {
  it("is quoted cut, not whole, in the 400", async () => {
    const value = `1,2,${"9".repeat(60)}${"Z".repeat(6000)}`;
    const r = await liteClient(lite).call("GET", "/v1/streams/s/records", {
      basin,
      headers: { accept: "text/event-stream", "last-event-id": value },
    });
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.code).toBe("bad_header");
    expect(body.message).toContain("invalid Last-Event-ID");
    expect(body.message).toContain("expected seq_num,count,bytes");
    expect(body.message).not.toContain("Z");
    expect(body.message.length).toBeLessThan(200);
  });

  it("is quoted whole when short", async () => {
    const r = await liteClient(lite).call("GET", "/v1/streams/s/records", {
      basin,
      headers: { accept: "text/event-stream", "last-event-id": "1,2" },
    });
    expect(r.status).toBe(400);
    expect(r.json().message).toContain('invalid Last-Event-ID "1,2"');
  });
});
