// What a user's name may be: optional, at most 255 characters, no control character, stored
// trimmed (empty: none).
// The accounts service applies it (the CLI, the setup page and the users page go through
// it); the users API's schema runs it too (`x-rule: "user-name"`, beside a maxLength for the
// API document, whose message is the same tooLong), so every way of creating a user refuses
// the same names with the same sentence, with every other invalid field.

import {
  accept,
  codeUnits,
  hasControlCharacter,
  holdsControl,
  type RuleResult,
  reject,
  tooLong,
} from "../field-rule.js";

export const USER_NAME_MAX_LENGTH = 255;

export function userNameRule(raw: string): RuleResult {
  if (codeUnits(raw) > USER_NAME_MAX_LENGTH) return reject(tooLong("name", USER_NAME_MAX_LENGTH));
  const name = raw.trim();
  if (hasControlCharacter(name)) return reject(holdsControl("name"));
  return accept(name || null);
}
