/**
 * Configuration shapes the client sends that types.ts does not spell out: reconfiguration
 * bodies (three states per field: absent = unchanged, null = reset, value = set; protocol.md
 * §3.1, §3.2) and the optional stream cipher.
 */
import type { BasinConfig, BasinScope, StreamCipher, StreamConfig } from "../types.js";

export interface BasinConfigWithCipher extends BasinConfig {
  stream_cipher?: StreamCipher | null;
}

/** PATCH body for a stream: same field names as StreamConfig, null resets a field. */
export type StreamReconfiguration = StreamConfig;

export interface BasinReconfiguration {
  default_stream_config?: StreamReconfiguration | null;
  create_stream_on_append?: boolean | null;
  create_stream_on_read?: boolean | null;
  stream_cipher?: StreamCipher | null;
}

export interface CreateBasinOptions {
  config?: BasinConfigWithCipher;
  scope?: BasinScope;
  /** `svc-request-token`; a fresh UUID per logical create when omitted. */
  requestToken?: string;
}

export interface CreateStreamOptions {
  config?: StreamConfig;
  requestToken?: string;
}

/** `svc-provision-result` (newest servers): what a create or ensure did. */
export type ProvisionResult = "created" | "updated" | "noop";

export interface Provisioned<T> {
  info: T;
  /** HTTP status: 201 when created, 200 when it already existed (or an idempotent replay). */
  status: number;
  provision?: ProvisionResult;
}
