// The `x-rule` schema keyword: runs one of the domain's text rules (domain name, IP list,
// parameter list, day, email, user name) inside Ajv, so a request reports these errors
// together with every other invalid field. The rule's own sentences become the error messages.

import type { Ajv, ErrorObject } from "ajv";
import { emailRule } from "../accounts/email-rule.js";
import { userNameRule } from "../accounts/user-name-rule.js";
import type { FieldRule } from "../field-rule.js";
import { parseDay } from "../stats/day-rule.js";
import { TEXT_RULES } from "../websites/website-rules.js";

/** Every rule a schema may name with `x-rule`. */
const RULES = { ...TEXT_RULES, day: parseDay, email: emailRule, "user-name": userNameRule } satisfies Record<
  string,
  FieldRule
>;
export type RuleName = keyof typeof RULES;

export const RULE_KEYWORD = "x-rule";

interface RuleValidator {
  (
    ruleName: RuleName,
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
    const result = RULES[ruleName](data, label);
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
    metaSchema: { type: "string", enum: Object.keys(RULES) },
  });
  return ajv;
}
