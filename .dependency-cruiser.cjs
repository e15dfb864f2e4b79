/**
 * Import boundaries of docs/architecture.md ("Who may import whom"), checked by `npm run lint`.
 *
 * Each layer has an allow-list: anything else it imports (another layer, a node core module,
 * a third-party package) is a violation. Core modules resolve to bare names (`fs`, `zlib`);
 * packages resolve into some `node_modules/` (here a symlink, so paths are not anchored).
 * Nothing is filtered out with `includeOnly`: it used to drop core modules and, through the
 * symlink, every package, so `node:fs` in wire/ or `lmdb` in client/ passed.
 * test/unit/lint/boundaries.test.ts proves that each rule fails its fixture (test/fixtures/boundaries/).
 */
const layer = (name) => `^src/${name}(/|\\.ts$)`;
const pkg = (names) => `(^|/)node_modules/(${names})/`;
const core = (names) => `^(${names})$`;
const SHARED = "^src/(types|metric-types|errors|bytes|sleep)\\.ts$";
const RULES = "^src/rules/";
const LOCAL_LITE = "^src/local-lite\\.ts$";
const SUGGEST = "^src/format/suggest\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "types-errors-leaf",
      comment: "types.ts, metric-types.ts and errors.ts import nothing but each other (types only)",
      severity: "error",
      from: { path: "^src/(types|metric-types|errors)\\.ts$" },
      to: { pathNot: "^src/(types|metric-types|errors)\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "bytes-leaf",
      comment: "bytes.ts (byte <-> text conversions shared by wire/ and format/) imports only types, errors and node:buffer",
      severity: "error",
      from: { path: "^src/bytes\\.ts$" },
      to: { pathNot: ["^src/(types|metric-types|errors)\\.ts$", core("buffer")] },
    },
    {
      name: "dirs-leaf",
      comment: "dirs.ts (making directories, shared by lite/ and cli/) imports only node:fs and node:path",
      severity: "error",
      from: { path: "^src/dirs\\.ts$" },
      to: { pathNot: core("fs|path") },
    },
    {
      name: "local-lite-leaf",
      comment:
        "local-lite.ts (what svc and a local lite agree on: default address, data dir, root token file, the proof) imports only node:crypto, node:os and node:path, so both faces can share it",
      severity: "error",
      from: { path: "^src/local-lite\\.ts$" },
      to: { pathNot: core("crypto|os|path") },
    },
    {
      name: "whole-file-leaf",
      comment: "whole-file.ts (files written whole, one policy per kind of file, shared by lite/ and cli/) imports only node:fs, node:path and node:crypto",
      severity: "error",
      from: { path: "^src/whole-file\\.ts$" },
      to: { pathNot: core("fs|path|crypto") },
    },
    {
      name: "rules-leaf",
      comment: "rules/ (the protocol's rules: names, records, batches, commands) judges plain data: types, errors and bytes only",
      severity: "error",
      from: { path: layer("rules") },
      to: { pathNot: [RULES, SHARED] },
    },
    {
      name: "wire-is-pure",
      comment: "wire/ is bytes in, values out: types, errors, bytes, protobufjs, zstd, node:zlib/util/buffer only",
      severity: "error",
      from: { path: layer("wire") },
      to: { pathNot: ["^src/wire/", SHARED, pkg("protobufjs|long|@mongodb-js/zstd"), core("zlib|util|buffer")] },
    },
    {
      name: "transport-knows-no-frames",
      comment: "transport/ may import errors, sleep, undici and node:http/https/http2/net/tls only",
      severity: "error",
      from: { path: layer("transport") },
      to: { pathNot: ["^src/transport/", "^src/(errors|sleep)\\.ts$", pkg("undici"), core("http|https|http2|net|tls")] },
    },
    {
      name: "client-layer",
      comment:
        "client/ may import transport, wire, rules, types, errors, local-lite (the proof it asks of a local lite) and node:crypto (request tokens) only",
      severity: "error",
      from: { path: layer("client") },
      to: { pathNot: ["^src/(client|transport|wire|rules)/", SHARED, LOCAL_LITE, core("crypto")] },
    },
    {
      name: "format-is-pure",
      comment: "format/ may import rules, types, errors, bytes and node:buffer only",
      severity: "error",
      from: { path: layer("format") },
      to: { pathNot: ["^src/(format|rules)/", SHARED, core("buffer")] },
    },
    {
      name: "lite-is-self-contained",
      comment:
        "lite/ may import wire, rules, types, errors, bytes, dirs, whole-file, local-lite, format/suggest (the one did-you-mean rule), node:* and its storage and crypto libraries (lmdb, pg, libsodium)",
      severity: "error",
      from: { path: layer("lite") },
      to: { pathNot: ["^src/(lite|wire|rules)/", SHARED, "^src/(dirs|whole-file)\\.ts$", LOCAL_LITE, SUGGEST, pkg("lmdb|pg|pg-[a-z-]+|libsodium-wrappers-sumo")], dependencyTypesNot: ["core"] },
    },
    {
      name: "suggest-leaf",
      comment: "format/suggest.ts (the did-you-mean rule, which lite's flags use too) imports nothing",
      severity: "error",
      from: { path: SUGGEST },
      to: {},
    },
    {
      name: "lite-storage-is-the-floor",
      comment:
        "lite/storage/ (the seams and their backends) imports nothing else of lite: not auth, crypto or store; the shapes it stores are its own (storage/types.ts)",
      severity: "error",
      from: { path: "^src/lite/storage/" },
      to: { path: "^src/lite/", pathNot: "^src/lite/storage/" },
    },
    {
      name: "lite-store-below-http",
      comment: "lite/store/ serves the HTTP front and its sessions and never imports them: not http/, session/, server.ts or what starts the server",
      severity: "error",
      from: { path: "^src/lite/store/" },
      to: { path: "^src/lite/(http/|session/|server\\.ts$|sniff\\.ts$|main\\.ts$|run\\.ts$|server-thread\\.ts$|thread\\.ts$)" },
    },
    {
      name: "cli-layer",
      comment:
        "cli/ talks to the service only through client/: client, format, rules, types, errors, dirs, whole-file, local-lite, commander, chalk, ora, node:*",
      severity: "error",
      from: { path: layer("cli") },
      to: { pathNot: ["^src/(cli|client|format|rules|lite)/", SHARED, "^src/(dirs|whole-file)\\.ts$", LOCAL_LITE, pkg("commander|chalk|ora")], dependencyTypesNot: ["core"] },
    },
    {
      name: "cli-lite-only-from-lite-command",
      comment: "svc lite is started only by the `svc lite` command",
      severity: "error",
      from: { path: layer("cli"), pathNot: "^src/cli/commands/lite\\.ts$" },
      to: { path: "^src/lite/" },
    },
    {
      name: "library-entry-is-the-client",
      comment:
        "src/index.ts, the library's public entry (package.json exports), lists names of client/, errors and types only: no CLI, no lite",
      severity: "error",
      from: { path: "^src/index\\.ts$" },
      to: { pathNot: ["^src/client/", "^src/(types|metric-types|errors)\\.ts$"] },
    },
    {
      name: "nothing-imports-library-entry",
      comment: "src/index.ts is the package's front door for users; code inside imports the module that defines a name",
      severity: "error",
      from: { pathNot: "^src/index\\.ts$" },
      to: { path: "^src/index\\.ts$" },
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
      to: { path: pkg("protobufjs") },
    },
    {
      name: "zstd-has-one-owner",
      severity: "error",
      from: { pathNot: "^src/wire/compression\\.ts$" },
      to: { path: pkg("@mongodb-js/zstd") },
    },
    {
      name: "undici-has-one-owner",
      severity: "error",
      from: { pathNot: "^src/transport/" },
      to: { path: pkg("undici") },
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
  },
};
