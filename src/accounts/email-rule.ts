// What an account's email must be: trimmed and lowercased, at most 320 characters, with one @
// and a dot after it, no space or control character. One rule for the accounts service, the
// API's schema (`x-rule: "email"`) and the web app's forms, so a request reports a bad email
// together with every other invalid field. The length is checked first: the pattern's backtracking grows with the
// square of the length, and 320 is the longest address mail can carry (64 + @ + 255).

import { accept, codeUnits, hasControlCharacter, type RuleResult, reject, tooLong } from "../field-rule.js";

export const EMAIL_MAX_LENGTH = 320;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailRule(raw: string): RuleResult {
  const email = raw.trim().toLowerCase();
  if (codeUnits(email) > EMAIL_MAX_LENGTH) return reject(tooLong("email", EMAIL_MAX_LENGTH));
  // The pattern lets through control characters other than whitespace (a NUL, say).
  return EMAIL_PATTERN.test(email) && !hasControlCharacter(email)
    ? accept(email)
    : reject("The email must be a valid email address.");
}
