// Report periods in UTC: a week is Monday 00:00 to the next Monday 00:00, a month runs from
// the 1st. A period's report is due 6 hours after it ends (late hits have landed by then).
// Pure functions of an instant, so the scheduler and the CLI agree and tests pin time.

import type { ReportPeriodKind } from "../config.js";

/** UTC days, inclusive, YYYY-MM-DD: the form statistics queries take. */
export interface DayRange {
  from: string;
  to: string;
}

export interface ReportPeriod {
  kind: ReportPeriodKind;
  /** Names the period in the report log: `week:2026-04-06` (its Monday) or `month:2026-04`. */
  key: string;
  /** The period reported on. */
  current: DayRange;
  /** The period before it, for the change. */
  previous: DayRange;
  /** Human name: `2026-04-06 to 2026-04-12` or `April 2026`. */
  label: string;
}

const DAY_MS = 86_400_000;
/** How long after its end a period's report is due (06:00 UTC). */
export const REPORT_DELAY_MS = 6 * 3_600_000;

/** The start of the period (week or month) that contains `instant`. */
function startOf(kind: ReportPeriodKind, instant: Date): Date {
  if (kind === "month") return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), 1));
  const midnight = Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate());
  const sinceMonday = (instant.getUTCDay() + 6) % 7; // getUTCDay: 0 is Sunday
  return new Date(midnight - sinceMonday * DAY_MS);
}

/** The start of the period `count` periods after the one starting at `start` (negative: before). */
function shift(kind: ReportPeriodKind, start: Date, count: number): Date {
  if (kind === "month") return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + count, 1));
  return new Date(start.getTime() + count * 7 * DAY_MS);
}

function day(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** The days of the period starting at `start` (inclusive of its last day). */
function rangeFrom(kind: ReportPeriodKind, start: Date): DayRange {
  return { from: day(start), to: day(new Date(shift(kind, start, 1).getTime() - DAY_MS)) };
}

const MONTH_NAME = new Intl.DateTimeFormat("en", { month: "long", year: "numeric", timeZone: "UTC" });

/** The last period that has fully ended at `now`, and the one before it. */
export function lastFullPeriod(kind: ReportPeriodKind, now: Date): ReportPeriod {
  const start = shift(kind, startOf(kind, now), -1);
  const current = rangeFrom(kind, start);
  return {
    kind,
    key: kind === "month" ? `month:${current.from.slice(0, 7)}` : `week:${current.from}`,
    current,
    previous: rangeFrom(kind, shift(kind, start, -1)),
    label: kind === "month" ? MONTH_NAME.format(start) : `${current.from} to ${current.to}`,
  };
}

/**
 * The most recent period whose report is due at `now` (ended at least 6 hours ago). On a
 * Monday at 05:59 UTC that is still the week before last: a server started then catches up
 * a report it missed.
 */
export function latestDuePeriod(kind: ReportPeriodKind, now: Date): ReportPeriod {
  return lastFullPeriod(kind, new Date(now.getTime() - REPORT_DELAY_MS));
}

/** When the next report falls due after `now`: the next Monday (or 1st) at 06:00 UTC. */
export function nextDueTime(kind: ReportPeriodKind, now: Date): Date {
  const shifted = new Date(now.getTime() - REPORT_DELAY_MS);
  return new Date(shift(kind, startOf(kind, shifted), 1).getTime() + REPORT_DELAY_MS);
}
