// The date range of a stats page: `?from=&to=` (inclusive days of the website's zone; `now`
// is its wall clock, ZoneRule.wallClock) or the last 30 days,
// the period just before it (for the change figures), and the picker's presets.

import { addDays, dayOf, daysBetween, daysFrom, parseDay } from "../stats/day-rule.js";
export const DEFAULT_DAYS = 30;
/** Longest range one page shows: two years, 25 points of the monthly chart. */
export const MAX_DAYS = 731;

export interface DateRange {
  from: string;
  to: string;
  days: number;
}

export interface RangePreset {
  label: string;
  range: DateRange;
}

export type RangeResult = { ok: true; range: DateRange } | { ok: false; errors: string[] };

/** The last `days` days up to and including today. */
export function lastDays(days: number, now: Date): DateRange {
  const to = dayOf(now);
  return { from: addDays(to, 1 - days), to, days };
}

/**
 * Reads `from`/`to`; both missing means the default range, one missing means that end of it.
 * `labels` name the two in messages.
 */
export function parseRange(
  from: unknown,
  to: unknown,
  now: Date,
  labels: { from: string; to: string } = { from: "from", to: "to" },
): RangeResult {
  const errors: string[] = [];
  const read = (raw: unknown, label: string): string | null => {
    if (raw === undefined || raw === "") return null;
    const result = parseDay(String(raw), label);
    if (!result.ok) errors.push(...result.errors);
    else return String(raw);
    return null;
  };
  const given = { from: read(from, labels.from), to: read(to, labels.to) };
  if (errors.length > 0) return { ok: false, errors };
  const fallback = lastDays(DEFAULT_DAYS, now);
  const first = given.from ?? (given.to ? addDays(given.to, 1 - DEFAULT_DAYS) : fallback.from);
  const last = given.to ?? (given.from ? addDays(given.from, DEFAULT_DAYS - 1) : fallback.to);
  if (first > last)
    return { ok: false, errors: [`The ${labels.to} must be a date after or equal to ${labels.from}.`] };
  const days = daysBetween(first, last);
  if (days > MAX_DAYS) return { ok: false, errors: [`The range must not be longer than ${MAX_DAYS} days.`] };
  return { ok: true, range: { from: first, to: last, days } };
}

/** Every day of the range, in order. */
export function daysOf(range: DateRange): string[] {
  return daysFrom(range.from, range.to);
}

export function presets(now: Date): RangePreset[] {
  return [
    { label: "Today", range: lastDays(1, now) },
    { label: "7 days", range: lastDays(7, now) },
    { label: "30 days", range: lastDays(30, now) },
    { label: "90 days", range: lastDays(90, now) },
    { label: "12 months", range: lastDays(365, now) },
  ];
}
