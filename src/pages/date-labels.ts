// How days, ranges and the chart's points read on the page (English, UTC): the long form for
// tooltips and tables, the short one for the chart's axis.

import type { ChartPoint, ChartUnit } from "./chart-points.js";
import type { DateRange } from "./date-range.js";

const shortDate = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const longDate = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});
const shortMonth = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", timeZone: "UTC" });
const longMonth = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", timeZone: "UTC" });

function dateOf(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

/** `Apr 1` or, long, `Apr 1, 2026`. */
export function dateLabel(day: string, long = false): string {
  return (long ? longDate : shortDate).format(dateOf(day));
}

/** `Apr 1, 2026`, or `Mar 30 – Apr 5, 2026` for several days. */
export function daysLabel(from: string, to: string): string {
  return from === to ? dateLabel(from, true) : longDate.formatRange(dateOf(from), dateOf(to));
}

export function rangeLabel(range: DateRange): string {
  return daysLabel(range.from, range.to);
}

/** What a point covers, in full: `Apr 1, 2026, 09:00–10:00`, `April 2026 (Apr 1 – 10)`. */
export function pointLabel(unit: ChartUnit, point: ChartPoint): string {
  switch (unit) {
    case "hour":
      return `${dateLabel(point.from, true)}, ${hourLabel(point)}–${hourLabel(point, 1)}`;
    case "month": {
      const month = longMonth.format(dateOf(point.from));
      const whole = point.from.endsWith("-01") && lastOfMonth(point.to);
      return whole ? month : `${month} (${shortDate.formatRange(dateOf(point.from), dateOf(point.to))})`;
    }
    default:
      return daysLabel(point.from, point.to);
  }
}

/** A point's name under the chart: `09:00`, `Apr 1` (a day, or the first of a week), `Apr 2026`. */
export function tickLabel(unit: ChartUnit, point: ChartPoint): string {
  if (unit === "hour") return hourLabel(point);
  if (unit === "month") return shortMonth.format(dateOf(point.from));
  return dateLabel(point.from);
}

function hourLabel(point: ChartPoint, later = 0): string {
  return `${String(Number(point.hour ?? 0) + later).padStart(2, "0")}:00`;
}

function lastOfMonth(day: string): boolean {
  const next = dateOf(day);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.getUTCDate() === 1;
}
