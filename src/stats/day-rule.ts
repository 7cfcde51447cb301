// Dates of the statistics range: YYYY-MM-DD naming a real calendar day (UTC) from
// EARLIEST_DAY to LATEST_DAY, and the arithmetic of such days.

import { accept, type RuleResult, reject } from "../field-rule.js";

/**
 * The days a range may name (the API's, the pages', the CLI's): no event is older than
 * 1970 (an event's time is refused before it), and a range and the period before it stay
 * within four-digit years (the engines' date types and YYYY-MM-DD both need them).
 */
export const EARLIEST_DAY = "1970-01-01";
export const LATEST_DAY = "9000-12-31";

/**
 * The most days an answer listing every day of its range covers (a series by the day, the
 * dropped hits): ten years. The whole span above is 2.6 million days, whose listing took a
 * minute and 257 MB while the server answered nothing else.
 */
export const MAX_LISTED_DAYS = 3_660;
/** The most days a series by the week or month covers: a hundred years. */
export const MAX_GROUPED_DAYS = 36_525;

export function parseDay(raw: string, label: string): RuleResult {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (match) {
    // Compared as text (fixed width), before Date.UTC, which reads years 0-99 as 1900-1999.
    if (raw < EARLIEST_DAY || raw > LATEST_DAY)
      return reject(`The ${label} must be a date from ${EARLIEST_DAY} to ${LATEST_DAY}.`);
    const [, year, month, day] = match.map(Number) as [number, number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
      return accept(raw);
    }
  }
  return reject(`The ${label} must be a real date in the format YYYY-MM-DD.`);
}

const DAY_MS = 86_400_000;

export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** How many days from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** Every day from `from` to `to`, in order. */
export function daysFrom(from: string, to: string): string[] {
  return Array.from({ length: Math.max(0, daysBetween(from, to)) }, (_, index) => addDays(from, index));
}

/** The Monday of the week of `day` (weeks run Monday to Sunday, as the weekly reports'). */
export function mondayOf(day: string): string {
  const sinceMonday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // getUTCDay: 0 is Sunday
  return addDays(day, -sinceMonday);
}
