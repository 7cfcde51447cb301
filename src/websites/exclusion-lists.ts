// The two exclusion lists of a website. Entries are separated by newlines or commas and
// stored normalised, one per line, without duplicates; an empty list is stored as null.
// - exclude_ips: IPv4/IPv6 addresses and CIDR blocks.
// - exclude_params: query-parameter names (exact, case-sensitive), or `&` for the whole query.

import { isIP } from "node:net";
import { accept, clipped, type RuleResult, reject } from "../field-rule.js";

export const MAX_LIST_ENTRIES = 1000;
const MAX_REPORTED = 10;
const PARAM_NAME = /^[^\s=&#?,]{1,255}$/;

export function parseIpList(raw: string, label: string): RuleResult {
  return parseList(raw, label, normaliseIpEntry, "is not a valid IP address or CIDR block");
}

export function parseParamList(raw: string, label: string): RuleResult {
  const normaliseParam = (entry: string) => (entry === "&" || PARAM_NAME.test(entry) ? entry : null);
  return parseList(
    raw,
    label,
    normaliseParam,
    "is not a valid query parameter name (or & for the whole query)",
  );
}

/** `10.0.0.1`, `2001:db8::1`, `10.0.0.0/8` or `2001:db8::/32`, lowercased; null when invalid. */
export function normaliseIpEntry(entry: string): string | null {
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return null;
  if (prefix === undefined) return address.toLowerCase();
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128)) return null;
  return `${address.toLowerCase()}/${Number(prefix)}`;
}

function parseList(
  raw: string,
  label: string,
  normalise: (entry: string) => string | null,
  problem: string,
): RuleResult {
  const entries = raw
    .split(/[\r\n,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length > MAX_LIST_ENTRIES) {
    return reject(`The ${label} must not have more than ${MAX_LIST_ENTRIES} entries.`);
  }
  const kept = new Set<string>();
  const invalid: string[] = [];
  for (const entry of entries) {
    const normalised = normalise(entry);
    if (normalised === null) invalid.push(entry);
    else kept.add(normalised);
  }
  if (invalid.length > 0) {
    const errors = invalid
      .slice(0, MAX_REPORTED)
      .map((entry) => `The ${label} entry "${clipped(entry)}" ${problem}.`);
    if (invalid.length > MAX_REPORTED)
      errors.push(`The ${label} has ${invalid.length - MAX_REPORTED} more invalid entries.`);
    return reject(...errors);
  }
  return accept(kept.size > 0 ? [...kept].join("\n") : null);
}
