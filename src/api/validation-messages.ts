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
  for (const error of withUnionsSaidOnce(errors)) {
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

/**
 * A value of a union (anyOf, e.g. an event's value: a string or a number) that matches no
 * branch gets an error from each branch and one more for the union, which read as three
 * contradictory sentences ("must be a string", "must be a number", "format is invalid").
 * Said once instead: the types it may have, when it has none of them; else only what the
 * branches of its own type found (a string too long).
 */
function withUnionsSaidOnce(errors: readonly ErrorObject[]): ErrorObject[] {
  const replaced = new Map<ErrorObject, ErrorObject | null>();
  for (const union of errors.filter((error) => error.keyword === "anyOf")) {
    const prefix = `${union.schemaPath}/`;
    const branchOf = (error: ErrorObject) => error.schemaPath.slice(prefix.length).split("/")[0];
    const inBranches = errors.filter((error) => error.schemaPath.startsWith(prefix));
    const wrongType = inBranches.filter(
      (error) => error.keyword === "type" && error.instancePath === union.instancePath,
    );
    const mistyped = new Set(wrongType.map(branchOf));
    const noneOfItsTypes = inBranches.every((error) => mistyped.has(branchOf(error)));
    for (const error of inBranches) if (mistyped.has(branchOf(error))) replaced.set(error, null);
    const types = wrongType.map((error) => String(error.params.type)).join(",");
    replaced.set(union, noneOfItsTypes ? { ...union, keyword: "type", params: { type: types } } : null);
  }
  if (replaced.size === 0) return [...errors];
  return errors.flatMap((error) => {
    const instead = replaced.get(error);
    return instead === undefined ? [error] : instead === null ? [] : [instead];
  });
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
    case "type": {
      // One type, or several ("string,number": a union's, or a list of types).
      const types = String(params.type).split(",");
      return `${subject} must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(" or ")}.`;
    }
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
