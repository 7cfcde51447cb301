// What an account's email must be: trimmed and lowercased, with one @ and a dot after it.
// One rule for the accounts service and the API's schema (`x-rule: "email"`), so a request
// reports a bad email together with every other invalid field.

import { accept, type RuleResult, reject } from "../field-rule.js";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailRule(raw: string): RuleResult {
  const email = raw.trim().toLowerCase();
  return EMAIL_PATTERN.test(email) ? accept(email) : reject("The email must be a valid email address.");
}
