// Dates of the statistics range: YYYY-MM-DD naming a real calendar day (UTC).

import { accept, type RuleResult, reject } from "../field-rule.js";

export function parseDay(raw: string, label: string): RuleResult {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (match) {
    const [, year, month, day] = match.map(Number) as [number, number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
      return accept(raw);
    }
  }
  return reject(`The ${label} must be a real date in the format YYYY-MM-DD.`);
}
