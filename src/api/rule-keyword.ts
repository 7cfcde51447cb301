// The `x-rule` schema keyword: runs one of the domain's text rules (domain name, IP list,
// parameter list) inside Ajv, so a request reports these errors together with every other
// invalid field. The rule's own sentences become the error messages.

import type { Ajv, ErrorObject } from "ajv";
import { TEXT_RULES, type TextRuleName } from "../websites/website-rules.js";

export const RULE_KEYWORD = "x-rule";

interface RuleValidator {
  (
    ruleName: TextRuleName,
    data: unknown,
    parentSchema: unknown,
    context?: { parentDataProperty: string | number },
  ): boolean;
  errors?: Partial<ErrorObject>[];
}

export function addRuleKeyword(ajv: Ajv): Ajv {
  const validate: RuleValidator = (ruleName, data, _parentSchema, context) => {
    if (typeof data !== "string") return true; // the `type` keyword reports this
    const label = String(context?.parentDataProperty ?? "value").replace(/_/g, " ");
    const result = TEXT_RULES[ruleName](data, label);
    if (result.ok) return true;
    validate.errors = result.errors.map((message) => ({ keyword: RULE_KEYWORD, message, params: {} }));
    return false;
  };
  ajv.addKeyword({
    keyword: RULE_KEYWORD,
    type: "string",
    schemaType: "string",
    errors: true,
    validate,
    metaSchema: { type: "string", enum: Object.keys(TEXT_RULES) },
  });
  return ajv;
}
