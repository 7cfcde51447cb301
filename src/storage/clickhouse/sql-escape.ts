// The one way values enter ClickHouse SQL: ClickHouse 18.16 has no query parameters, so
// every string, number and day is written as a literal by sqlValue(), and SQL is put
// together only through the `sql` template, which escapes every interpolated value. Inserted
// rows go as TabSeparated text, each string through tsvValue().

/** A value that may enter SQL: strings (also days, as 'YYYY-MM-DD'), finite numbers, bigints. */
export type SqlValue = string | number | bigint | boolean;

/** SQL text that is trusted as it is: identifiers from the catalog, validated names, fragments. */
export class Sql {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A database, cluster, table or column name; only plain identifiers are accepted, never quoted. */
export function sqlIdentifier(name: string): Sql {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  return new Sql(name);
}

/**
 * A literal ClickHouse reads back as exactly `value`. Strings are single-quoted with the
 * backslash, the quote and every control character escaped (`\xHH`), so no byte of the
 * value can end the literal or be read as an escape; other characters go as UTF-8.
 */
export function sqlValue(value: SqlValue): string {
  if (typeof value === "string") {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
    return `'${value.replace(/[\\'\u0000-\u001f\u007f]/g, escapeChar)}'`;
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "1" : "0";
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return String(value);
}

function escapeChar(char: string): string {
  if (char === "\\") return "\\\\";
  if (char === "'") return "\\'";
  return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/** Builds SQL: interpolated Sql fragments are kept, every other value goes through sqlValue(). */
export function sql(strings: TemplateStringsArray, ...values: (SqlValue | Sql)[]): Sql {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += (value instanceof Sql ? value.text : sqlValue(value)) + (strings[i + 1] ?? "");
  });
  return new Sql(text);
}

/** Joins fragments with a separator (a list of columns, of conditions). */
export function sqlJoin(parts: readonly Sql[], separator: string): Sql {
  return new Sql(parts.map((part) => part.text).join(separator));
}

const TSV_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A string as a field of a TabSeparated row: the backslash and the characters that end a field or a row escaped. */
export function tsvValue(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c] as string) : text;
}
