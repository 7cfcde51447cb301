// Reads a JSON request body for /api/v1, in place of the framework's parser: the same
// answers for an empty body and for text that is not JSON, but its own for valid JSON with a
// prototype-poisoning key (`__proto__`, or `constructor` holding `prototype`), which the
// framework refuses as "Body is not valid JSON". The events route reads its bodies on an
// import thread with the same function (import-body.ts), so both answer alike; the answers
// are in http-errors.ts. Loads nothing of the framework, for the import threads' sake.

import secureJson from "secure-json-parse";

/** Why a JSON body was refused. */
export type JsonBodyProblem = "empty" | "not_json" | "forbidden_key";

/** The body's value, or why it is refused. */
export function parseJsonBody(text: string): { value: unknown } | { problem: JsonBodyProblem } {
  if (text.length === 0) return { problem: "empty" };
  // A byte-order mark, which the framework's parser (secure-json-parse) drops too.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { problem: "not_json" };
  }
  // JSON.parse makes such a key an own property (no prototype changes here), but code that
  // later copies the object into another could be poisoned by it. The scan is skipped when
  // the text cannot hold one, literally or escaped: on an import of 10,000 events
  // secure-json-parse's own two regular-expression scans of the text were 4 % of the import
  // thread's time, these three substring searches a tenth of that.
  const suspect = json.includes("\\u") || json.includes("__proto__") || json.includes("constructor");
  if (suspect && typeof value === "object" && value !== null) {
    // In safe mode the scan answers null for a poisoned object rather than throwing.
    if (secureJson.scan(value, { protoAction: "error", constructorAction: "error", safe: true }) === null)
      return { problem: "forbidden_key" };
  }
  return { value };
}
