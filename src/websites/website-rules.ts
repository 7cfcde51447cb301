// The website fields' vocabulary: allowed values, defaults and the text rules, declared
// once and used by both the HTTP schemas (for early, all-fields validation) and the service.

import { accept, codeUnits, type FieldRule, type RuleResult, reject, tooLong } from "../field-rule.js";
import { DEFAULT_TIME_ZONE, parseTimeZone } from "../stats/time-zone.js";
import { normaliseDomain } from "./domain-name.js";
import { parseIpList, parseParamList } from "./exclusion-lists.js";

export const PRIVACY_VALUES = [0, 1, 2] as const;
export const FLAG_VALUES = [0, 1] as const;
export const PASSWORD_MAX_LENGTH = 128;

export const WEBSITE_DEFAULTS = {
  privacy: 1,
  email: 0,
  excludeBots: 1,
  /** On for new websites; websites from before the setting keep 0 (migration 0013). */
  excludeDatacenters: 1,
  timezone: DEFAULT_TIME_ZONE,
} as const;

/** Text rules by name; schemas refer to them with the `x-rule` keyword. */
export const TEXT_RULES = {
  domain: (raw: string) => normaliseDomain(raw),
  "ip-list": parseIpList,
  "param-list": parseParamList,
  "time-zone": parseTimeZone,
} satisfies Record<string, FieldRule>;

export type TextRuleName = keyof typeof TEXT_RULES;

/**
 * A stats page's password, kept as typed (its spaces count): at most PASSWORD_MAX_LENGTH
 * UTF-16 code units (field-rule.ts). The API's schema checks the same limit first; the web
 * app's forms reach the service, which applies this.
 */
export function passwordRule(raw: string): RuleResult {
  return codeUnits(raw) > PASSWORD_MAX_LENGTH
    ? reject(tooLong("password", PASSWORD_MAX_LENGTH))
    : accept(raw);
}

export const PASSWORD_REQUIRED = "The password field is required when privacy is 2 (Password).";
export const DOMAIN_TAKEN = "The domain has already been taken.";
