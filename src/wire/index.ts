/** The wire core: bytes in, values out, no I/O. Shared by the client and svc lite. */
export { encodeFrame, encodeFrameInPlace, encodeTerminalFrame, decodeTerminal, FrameParser, FrameError, FLAG_TERMINAL, FLAG_RECONNECT, MAX_FRAME_LENGTH } from "./framing.js";
export type { Frame, Compression } from "./framing.js";
export { negotiateCompression, parseContentEncoding, shouldCompress, compress, decompress, zstdDecompressedBound, COMPRESSION_THRESHOLD, MAX_FRAME_PAYLOAD } from "./compression.js";
export { frameMessage, frameEncoded, messagePayload } from "./message-frame.js";
export { encodeAppendInput, decodeAppendInput, encodeAppendAck, decodeAppendAck, encodeReadBatch, decodeReadBatch } from "./proto.js";
export {
  parseFormat, parseJsonText, decodeBase64Strict, encodeBytes, decodeBytes, lossyUtf8, u64Field,
  appendRecordFromJson, appendRecordToJson, appendInputFromJson, appendInputToJson,
  positionToJson, positionFromJson, appendAckToJson, appendAckFromJson,
  sequencedRecordToJson, sequencedRecordFromJson, readBatchToJson, readBatchFromJson,
} from "./json.js";
export { isCommandRecord, fencingTokenBytes, fenceRecord, trimRecord, parseCommand } from "./command.js";
export type { Command } from "./command.js";
export { meteredSize, meteredBatchSize, validateRecord, validateAppendInput } from "./batch.js";
