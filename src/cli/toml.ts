/**
 * The TOML subset svc's config file needs: `key = value` pairs at the top level and in
 * `[table]` / `[profiles.NAME]` headers; values are strings (basic "..." with escapes, or
 * literal '...'), integers, floats and booleans; `#` comments. Anything else is a parse error
 * with its line number. The writer emits the same subset, top-level keys first.
 */

export type TomlValue = string | number | boolean;
export type TomlTable = { [key: string]: TomlValue | TomlTable };

export class TomlError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "TomlError";
  }
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

export function parseToml(text: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = stripComment(raw, n).trim();
    if (line === "") return;
    if (line.startsWith("[")) {
      if (!line.endsWith("]") || line.startsWith("[["))
        throw new TomlError(n, `invalid table header ${JSON.stringify(line)}`);
      table = openTable(root, parseKeyPath(line.slice(1, -1), n), n);
      return;
    }
    const eq = findEquals(line);
    if (eq < 0) throw new TomlError(n, `expected key = value, got ${JSON.stringify(line)}`);
    const path = parseKeyPath(line.slice(0, eq), n);
    const value = parseValue(line.slice(eq + 1).trim(), n);
    const key = path.pop()!;
    const target = path.length > 0 ? openTable(table, path, n) : table;
    if (key in target) throw new TomlError(n, `duplicate key ${JSON.stringify(key)}`);
    target[key] = value;
  });
  return root;
}

function openTable(root: TomlTable, path: string[], n: number): TomlTable {
  let t = root;
  for (const k of path) {
    const v = t[k];
    if (v === undefined) t = t[k] = {};
    else if (typeof v === "object") t = v;
    else throw new TomlError(n, `key ${JSON.stringify(k)} is already a value, not a table`);
  }
  return t;
}

function stripComment(line: string, n: number): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return line.slice(0, i);
  }
  if (quote) throw new TomlError(n, "unterminated string");
  return line;
}

function findEquals(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "=") return i;
  }
  return -1;
}

function parseKeyPath(text: string, n: number): string[] {
  const keys: string[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    let key: string;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const end = closingQuote(rest, n);
      key = parseValue(rest.slice(0, end + 1), n) as string;
      rest = rest.slice(end + 1).trim();
    } else {
      const dot = rest.indexOf(".");
      key = (dot < 0 ? rest : rest.slice(0, dot)).trim();
      rest = dot < 0 ? "" : rest.slice(dot);
      if (!BARE_KEY.test(key)) throw new TomlError(n, `invalid key ${JSON.stringify(key)}`);
    }
    keys.push(key);
    if (rest.startsWith(".")) {
      rest = rest.slice(1).trim();
      if (rest === "") throw new TomlError(n, "a key must not end with a dot");
    } else if (rest !== "") throw new TomlError(n, `invalid key ${JSON.stringify(text.trim())}`);
  }
  if (keys.length === 0) throw new TomlError(n, "empty key");
  return keys;
}

function closingQuote(s: string, n: number): number {
  const q = s[0]!;
  for (let i = 1; i < s.length; i++) {
    if (q === '"' && s[i] === "\\") i++;
    else if (s[i] === q) return i;
  }
  throw new TomlError(n, "unterminated string");
}

function parseValue(v: string, n: number): TomlValue {
  if (v.startsWith('"')) {
    if (closingQuote(v, n) !== v.length - 1) throw new TomlError(n, `unexpected text after string: ${v}`);
    return unescapeBasic(v.slice(1, -1), n);
  }
  if (v.startsWith("'")) {
    if (closingQuote(v, n) !== v.length - 1) throw new TomlError(n, `unexpected text after string: ${v}`);
    return v.slice(1, -1);
  }
  if (v === "true") return true;
  if (v === "false") return false;
  if (/^[+-]?(0|[1-9](_?\d)*)$/.test(v)) {
    const num = Number(v.replaceAll("_", ""));
    if (!Number.isSafeInteger(num)) throw new TomlError(n, `integer out of range: ${v}`);
    return num;
  }
  if (/^[+-]?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(v)) return Number(v);
  throw new TomlError(
    n,
    v === "" ? "missing value" : `unsupported value ${JSON.stringify(v)} (use a quoted string, a number or true/false)`,
  );
}

function unescapeBasic(s: string, n: number): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_m, e: string) => {
    switch (e[0]) {
      case "b":
        return "\b";
      case "t":
        return "\t";
      case "n":
        return "\n";
      case "f":
        return "\f";
      case "r":
        return "\r";
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "u":
      case "U":
        return String.fromCodePoint(parseInt(e.slice(1), 16));
      default:
        throw new TomlError(n, `invalid escape \\${e}`);
    }
  });
}

function formatKey(k: string): string {
  return BARE_KEY.test(k) ? k : JSON.stringify(k);
}

function formatValue(v: TomlValue): string {
  // JSON string escapes (\" \\ \n \uXXXX ...) are all valid TOML basic-string escapes.
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

export function stringifyToml(root: TomlTable): string {
  const out: string[] = [];
  const emit = (table: TomlTable, path: string[]): void => {
    const scalars = Object.entries(table).filter(([, v]) => typeof v !== "object");
    const tables = Object.entries(table).filter(([, v]) => typeof v === "object") as [string, TomlTable][];
    if (path.length > 0 && (scalars.length > 0 || tables.length === 0)) {
      if (out.length > 0) out.push("");
      out.push(`[${path.map(formatKey).join(".")}]`);
    }
    for (const [k, v] of scalars) out.push(`${formatKey(k)} = ${formatValue(v as TomlValue)}`);
    for (const [k, v] of tables) emit(v, [...path, k]);
  };
  emit(root, []);
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
