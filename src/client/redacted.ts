/**
 * A secret that never prints: `toString`, `toJSON` and `util.inspect` all show `<redacted>`.
 * Only `reveal()` returns the value, and only code that puts it on the wire calls it.
 */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");
export const REDACTED = "<redacted>";

export class Redacted {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [INSPECT](): string {
    return REDACTED;
  }

  static from(value: string | Redacted | undefined): Redacted | undefined {
    if (value === undefined) return undefined;
    return value instanceof Redacted ? value : new Redacted(value);
  }
}
