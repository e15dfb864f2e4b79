import { describe, expect, it } from "vitest";
import {
  currentBasinFlat,
  currentStreamFlat,
  desiredBasinFlat,
  desiredStreamFlat,
  diff,
} from "../../../src/cli/apply/flat.js";
import { planLines, planSummary } from "../../../src/cli/apply/render.js";
import { mergeSpecs, parseSpec, unflatten } from "../../../src/rules/spec.js";

const spec = {
  $schema: "https://example/schema.json",
  basins: [
    {
      name: "my-basin-01",
      config: {
        default_stream_config: {
          storage_class: "standard",
          retention_policy: "7days",
          timestamping: { mode: "client-prefer", uncapped: false },
          delete_on_empty: { min_age: "1day" },
        },
        create_stream_on_append: true,
      },
      streams: [{ name: "events", config: { retention_policy: "infinite" } }, { name: "a/b" }],
    },
  ],
};

describe("cli > apply spec", () => {
  it("parses into flat fields", () => {
    const s = parseSpec(spec, "spec.json");
    expect(s.basins[0]!.fields).toEqual({
      "default_stream_config.storage_class": "standard",
      "default_stream_config.retention_policy": 604_800,
      "default_stream_config.timestamping.mode": "client-prefer",
      "default_stream_config.timestamping.uncapped": false,
      "default_stream_config.delete_on_empty.min_age_secs": 86_400,
      create_stream_on_append: true,
    });
    expect(s.basins[0]!.streams).toEqual([
      { name: "events", fields: { retention_policy: "infinite" } },
      { name: "a/b", fields: {} },
    ]);
  });

  it.each([
    [{ basins: [{ name: "my-basin-01", extra: 1 }] }, /basins\[0\]: unknown field "extra"/],
    [
      { basins: [{ name: "bad" }] },
      /basins\[0\]\.name: invalid basin name "bad": must be 8 to 48 characters long \(got 3\)/,
    ],
    [
      { basins: [{ name: "my-basin-01", config: { default_stream_config: { storage_class: "fast" } } }] },
      /storage_class: must be one of standard, express/,
    ],
    [
      { basins: [{ name: "my-basin-01", streams: [{ name: "s", config: { retention_policy: "0s" } }] }] },
      /retention_policy: must be greater than zero/,
    ],
    [{ basins: [{ name: "my-basin-01", streams: [{ name: "s" }, { name: "s" }] }] }, /appears twice/],
    [{ basin: [] }, /unknown field "basin"/],
    [[], /must be an object/],
  ])("rejects %j as bad input with its JSON path", (doc, msg) => {
    expect(() => parseSpec(doc, "spec.json")).toThrow(msg);
    expect(() => parseSpec(doc, "spec.json")).toThrow(expect.objectContaining({ code: "bad_input" }));
  });

  it("merges several files, refusing duplicate basins", () => {
    const a = parseSpec({ basins: [{ name: "my-basin-01" }] }, "a.json");
    const b = parseSpec({ basins: [{ name: "my-basin-02" }] }, "b.json");
    expect(mergeSpecs([a, b]).basins.map((x) => x.name)).toEqual(["my-basin-01", "my-basin-02"]);
    expect(() => mergeSpecs([a, a])).toThrow(/more than one spec file/);
  });
});

describe("cli > apply diff", () => {
  const s = parseSpec(spec, "spec.json").basins[0]!;
  const desired = desiredBasinFlat(s.fields);

  it("resets omitted basin fields to their defaults", () => {
    expect(desired.create_stream_on_read).toBe(false);
    expect(desired.stream_cipher).toBeNull();
  });

  it("reports nothing when the server state matches (reference-server shapes)", () => {
    const current = currentBasinFlat({
      create_stream_on_append: true,
      create_stream_on_read: false,
      default_stream_config: {
        storage_class: "standard",
        retention_policy: { age: 604_800 },
        timestamping: { mode: "client-prefer", uncapped: false },
        delete_on_empty: { min_age_secs: 86_400 },
      },
    });
    expect(diff(current, desired)).toEqual([]);
  });

  it("reports field changes old → new", () => {
    const current = currentBasinFlat({
      default_stream_config: null,
      create_stream_on_append: false,
      create_stream_on_read: true,
    });
    const changes = diff(current, desired);
    expect(changes).toContainEqual({ field: "create_stream_on_append", from: false, to: true });
    expect(changes).toContainEqual({ field: "create_stream_on_read", from: true, to: false });
    // An unset default is the system's (servers show defaults as in effect).
    expect(changes).toContainEqual({ field: "default_stream_config.storage_class", from: "express", to: "standard" });
    expect(changes).not.toContainEqual(expect.objectContaining({ field: "default_stream_config.retention_policy" }));
  });

  it("resolves streams: spec, then basin default, then system default; cloud-style omitted fields count as defaults", () => {
    const want = desiredStreamFlat(s.streams[0]!.fields, desired);
    expect(want).toEqual({
      storage_class: "standard",
      retention_policy: "infinite",
      "timestamping.mode": "client-prefer",
      "timestamping.uncapped": false,
      "delete_on_empty.min_age_secs": 86_400,
    });
    const plain = desiredStreamFlat({}, desiredBasinFlat({}));
    expect(diff(currentStreamFlat({}), plain)).toEqual([]);
  });

  it("builds wire reconfigurations from changed fields", () => {
    expect(
      unflatten({
        "default_stream_config.retention_policy": "infinite",
        "default_stream_config.timestamping.mode": null,
        create_stream_on_read: false,
      }),
    ).toEqual({
      default_stream_config: { retention_policy: { infinite: {} }, timestamping: { mode: null } },
      create_stream_on_read: false,
    });
    expect(unflatten({ retention_policy: 60 })).toEqual({ retention_policy: { age: 60 } });
  });

  it("renders a + ~ = - plan", () => {
    const lines = planLines({
      actions: [
        { kind: "create", resource: "basin", basin: "my-basin-01", fields: { create_stream_on_append: true } },
        {
          kind: "create",
          resource: "stream",
          basin: "my-basin-01",
          stream: "events",
          fields: { retention_policy: 86_400 },
        },
        {
          kind: "update",
          resource: "basin",
          basin: "my-basin-02",
          changes: [{ field: "default_stream_config.retention_policy", from: 604_800, to: "infinite" }],
        },
        { kind: "noop", resource: "stream", basin: "my-basin-02", stream: "x" },
        { kind: "delete", resource: "basin", basin: "old-basin-01" },
      ],
    });
    expect(lines).toEqual([
      "+ basin my-basin-01",
      "    create_stream_on_append: true",
      "  + stream my-basin-01/events",
      "      retention_policy: 1d",
      "~ basin my-basin-02",
      "    default_stream_config.retention_policy: 1w → infinite",
      "  = stream my-basin-02/x",
      "- basin old-basin-01",
    ]);
    expect(planSummary({ actions: [{ kind: "noop", resource: "basin", basin: "b" }] })).toBe(
      "0 to create, 0 to change, 0 to delete, 1 unchanged",
    );
  });
});
