/**
 * Import boundaries of ../shared/design/architecture.md ("Who may import whom"), checked by
 * `npm run lint`. Each rule forbids what the table forbids; a violation fails the build.
 */
const layer = (name) => `^src/${name}(/|\\.ts$)`;

module.exports = {
  forbidden: [
    {
      name: "types-errors-leaf",
      comment: "types.ts and errors.ts import nothing but each other",
      severity: "error",
      from: { path: "^src/(types|errors)\\.ts$" },
      to: { pathNot: "^src/(types|errors)\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "bytes-leaf",
      comment: "bytes.ts (byte <-> text conversions shared by wire/ and format/) imports only types and errors",
      severity: "error",
      from: { path: "^src/bytes\\.ts$" },
      to: { pathNot: ["^src/(types|errors)\\.ts$", "^buffer$"] },
    },
    {
      name: "wire-is-pure",
      comment: "wire/ is bytes in, values out: types, errors, protobufjs, zstd, node:zlib/util/buffer only",
      severity: "error",
      from: { path: layer("wire") },
      to: { pathNot: ["^src/(wire/|types\\.ts$|errors\\.ts$|bytes\\.ts$)", "node_modules/(protobufjs|long|@mongodb-js/zstd)/", "^(zlib|util|buffer)$"] },
    },
    {
      name: "transport-knows-no-frames",
      comment: "transport/ may import errors, undici and node:* only",
      severity: "error",
      from: { path: layer("transport") },
      to: { path: ["^src/(wire|client|cli|lite|format)/", "node_modules/(protobufjs|@mongodb-js)/"] },
    },
    {
      name: "client-not-up",
      comment: "client/ must not import cli, format or lite",
      severity: "error",
      from: { path: layer("client") },
      to: { path: "^src/(cli|format|lite)/" },
    },
    {
      name: "format-is-pure",
      comment: "format/ may import types, errors and bytes only",
      severity: "error",
      from: { path: layer("format") },
      to: { path: ["^src/(client|transport|wire|lite|cli)/", "node_modules/"] },
    },
    {
      name: "lite-is-self-contained",
      comment: "lite/ may import wire, types, errors, node:* and its storage library",
      severity: "error",
      from: { path: layer("lite") },
      to: { path: ["^src/(client|transport|cli|format)/", "node_modules/(undici|commander|chalk|ora)/"] },
    },
    {
      name: "cli-no-wire-or-transport",
      comment: "cli/ talks to the service only through client/; lite only from commands/lite.ts",
      severity: "error",
      from: { path: layer("cli") },
      to: { path: ["^src/(transport|wire)/", "node_modules/(undici|protobufjs|@mongodb-js)/"] },
    },
    {
      name: "cli-lite-only-from-lite-command",
      severity: "error",
      from: { path: layer("cli"), pathNot: "^src/cli/commands/lite\\.ts$" },
      to: { path: "^src/lite/" },
    },
    {
      name: "nothing-imports-cli",
      severity: "error",
      from: { pathNot: layer("cli") },
      to: { path: "^src/cli/" },
    },
    {
      name: "protobufjs-has-one-owner",
      comment: "only wire/proto.ts and the generated code import protobufjs",
      severity: "error",
      from: { pathNot: "^src/wire/(proto\\.ts|gen/)" },
      to: { path: "node_modules/protobufjs/" },
    },
    {
      name: "zstd-has-one-owner",
      severity: "error",
      from: { pathNot: "^src/wire/compression\\.ts$" },
      to: { path: "node_modules/@mongodb-js/zstd/" },
    },
    {
      name: "undici-has-one-owner",
      severity: "error",
      from: { pathNot: "^src/transport/" },
      to: { path: "node_modules/undici/" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^src/wire/gen/" },
    includeOnly: "^(src|node_modules)/",
  },
};
