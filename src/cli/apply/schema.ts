/** `apply --schema`: the JSON Schema of the spec (for `"$schema"` and editor completion). */
import { STORAGE_CLASSES, STREAM_CIPHERS, SVC_SCOPE, TIMESTAMPING_MODES } from "../../types.js";

const duration = { type: ["string", "integer"], description: 'humantime duration (e.g. "7d", "12h 30m") or seconds' };

const streamConfig = {
  type: "object",
  additionalProperties: false,
  properties: {
    storage_class: { enum: STORAGE_CLASSES },
    retention_policy: { anyOf: [{ const: "infinite" }, duration], description: '"infinite" or a duration > 0' },
    timestamping: {
      type: "object",
      additionalProperties: false,
      properties: { mode: { enum: TIMESTAMPING_MODES }, uncapped: { type: "boolean" } },
    },
    delete_on_empty: {
      type: "object",
      additionalProperties: false,
      properties: {
        min_age: { ...duration, description: "delete once empty for this long; 0 disables" },
        min_age_secs: { type: "integer", minimum: 0 },
      },
    },
  },
};

export const SPEC_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "svc apply spec",
  description: "Basins and streams that `svc apply` ensures; omitted fields mean their defaults.",
  type: "object",
  additionalProperties: false,
  required: ["basins"],
  properties: {
    $schema: { type: "string" },
    prune: {
      type: "object",
      description:
        'What `apply --prune` may delete beyond the streams of the named basins: basins starting with one of these prefixes ("" = all).',
      additionalProperties: false,
      required: ["basin_prefixes"],
      properties: { basin_prefixes: { type: "array", items: { type: "string" } } },
    },
    basins: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name"],
        properties: {
          name: { type: "string", pattern: "^[a-z0-9]([a-z0-9-]{6,46})[a-z0-9]$" },
          scope: { enum: [SVC_SCOPE] },
          config: {
            type: "object",
            additionalProperties: false,
            properties: {
              default_stream_config: streamConfig,
              create_stream_on_append: { type: "boolean" },
              create_stream_on_read: { type: "boolean" },
              stream_cipher: { enum: STREAM_CIPHERS },
            },
          },
          streams: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["name"],
              properties: { name: { type: "string", minLength: 1 }, config: streamConfig },
            },
          },
        },
      },
    },
  },
};
