/**
 * A small JSON Schema check, for the subset OpenAPI 3.1 descriptions use in response schemas:
 * `$ref` (within the document), `type` (one or a list, `null` included), `enum`, `const`,
 * `required`, `properties`, `additionalProperties`, `items`, `oneOf`/`anyOf`/`allOf`, and
 * `minimum`/`maximum`. Formats and string patterns are not checked. Returns what does not fit,
 * as `path: problem` lines (empty when the value fits).
 */
type Schema = Record<string, unknown>;

export function schemaErrors(value: unknown, schema: Schema, doc: Schema, path = "$"): string[] {
  if (typeof schema.$ref === "string") {
    const target = schema.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((o, k) => (o as Schema)[k], doc) as Schema;
    return schemaErrors(value, target, doc, path);
  }
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const types = ([] as unknown[]).concat(schema.type) as string[];
    if (!types.some((t) => typeOk(value, t))) return [`${path}: ${JSON.stringify(value)} is not ${types.join(" or ")}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && schema.const !== value)
    errors.push(`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      errors.push(`${path}: ${value} < ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum)
      errors.push(`${path}: ${value} > ${schema.maximum}`);
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const alts = schema[key] as Schema[] | undefined;
    if (alts && !alts.some((s) => schemaErrors(value, s, doc, path).length === 0))
      errors.push(`${path}: fits none of ${key} (${alts.map((s) => schemaErrors(value, s, doc, path)[0]).join("; ")})`);
  }
  for (const s of (schema.allOf as Schema[] | undefined) ?? []) errors.push(...schemaErrors(value, s, doc, path));
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const k of (schema.required as string[] | undefined) ?? [])
      if (!(k in obj)) errors.push(`${path}: missing required ${k}`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errors.push(...schemaErrors(v, props[k], doc, `${path}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected ${k}`);
      else if (typeof schema.additionalProperties === "object")
        errors.push(...schemaErrors(v, schema.additionalProperties as Schema, doc, `${path}.${k}`));
    }
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((v, i) => errors.push(...schemaErrors(v, schema.items as Schema, doc, `${path}[${i}]`)));
  return errors;
}

function typeOk(v: unknown, t: string): boolean {
  switch (t) {
    case "null":
      return v === null;
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "array":
      return Array.isArray(v);
    case "object":
      return v !== null && typeof v === "object" && !Array.isArray(v);
    default:
      return typeof v === t;
  }
}
