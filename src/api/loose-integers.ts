// Ajv's type coercion turns null into 0, true into 1 and "0x2", " 2" or "1e0" into 2. For a
// form field that is a privacy leak waiting to happen (privacy=null -> public), so integer
// fields accept only decimal digits: anything else is replaced by a value Ajv rejects, and
// the client gets the field's ordinary 422 sentence.

const DECIMAL = /^-?\d+$/;
const REJECTED = "not an integer";

interface ObjectSchema {
  properties?: Record<string, { type?: unknown }>;
}

export function rejectLooseIntegers(data: unknown, schema: unknown): void {
  const properties = (schema as ObjectSchema | undefined)?.properties;
  if (!properties || typeof data !== "object" || data === null) return;
  const record = data as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    if (property.type !== "integer" || !Object.hasOwn(record, name)) continue;
    const value = record[name];
    const loose =
      value === null || typeof value === "boolean" || (typeof value === "string" && !DECIMAL.test(value));
    if (loose) record[name] = REJECTED;
  }
}
