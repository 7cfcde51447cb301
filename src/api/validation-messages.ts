// Turns Ajv's errors into the 422 body's field map: one human sentence per problem,
// naming the field and what is allowed ("The per page must be one of: 10, 25, 50, 100.").

import type { ErrorObject } from "ajv";
import type { FieldErrors } from "../errors.js";
import { LENGTH_UNIT, tooLong } from "../field-rule.js";
import { RULE_KEYWORD } from "./rule-keyword.js";

const TYPE_NAMES: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

export function fieldErrorsFromAjv(errors: readonly ErrorObject[]): FieldErrors {
  const byField = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const field = fieldOf(error);
    byField.set(field, [...(byField.get(field) ?? []), error]);
  }
  const result: FieldErrors = {};
  for (const [field, fieldErrors] of byField) {
    // "must be one of: ..." says more than "must be an integer"; keep only the enum sentence.
    const hasEnum = fieldErrors.some((e) => e.keyword === "enum");
    const kept = fieldErrors.filter((e) => !(hasEnum && e.keyword === "type"));
    result[field] = [...new Set(kept.map((e) => sentence(field, e)))];
  }
  return result;
}

/** `/per_page` -> `per_page`; `/events/3/page` -> `events.3.page`; a missing property names itself. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.split("/").filter(Boolean);
  if (error.keyword === "required") path.push(String(error.params.missingProperty));
  return path.length > 0 ? path.join(".") : "body";
}

function sentence(field: string, error: ErrorObject): string {
  const last = field.split(".").pop() ?? field;
  // An element of a list has no name of its own ("The 0 must be an object."): it is named
  // by its path, as its key in the 422 body (`events.0`), the way its fields are keyed.
  const subject = /^\d+$/.test(last) ? field : `The ${last.replace(/_/g, " ")}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case RULE_KEYWORD:
      return error.message ?? `${subject} is invalid.`;
    case "required":
      return `${subject} field is required.`;
    case "enum":
      return `${subject} must be one of: ${(params.allowedValues as unknown[]).join(", ")}.`;
    case "const":
      return `${subject} must be ${params.allowedValue}.`;
    case "type":
      return `${subject} must be ${TYPE_NAMES[String(params.type)] ?? String(params.type)}.`;
    case "minimum":
      return `${subject} must be at least ${params.limit}.`;
    case "maximum":
      return `${subject} must not be greater than ${params.limit}.`;
    case "minLength":
      return `${subject} must be at least ${params.limit} characters.`;
    case "maxLength":
      // The sentence of every check of a length (field-rule.ts), for a named field.
      return /^\d+$/.test(last)
        ? `${subject} must not be greater than ${params.limit} ${LENGTH_UNIT}.`
        : tooLong(last.replace(/_/g, " "), Number(params.limit));
    case "minItems":
      return `${subject} must have at least ${params.limit} items.`;
    case "maxItems":
      return `${subject} must not have more than ${params.limit} items.`;
    default:
      return `${subject} format is invalid.`;
  }
}
