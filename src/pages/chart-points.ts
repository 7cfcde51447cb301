// The points of the visitors-and-pageviews chart, as fine as the range allows a chart to be
// read: hours for one day, days up to three months, weeks up to a year, months beyond.
// Weeks (Monday to Sunday) and months are those of the email reports, and add up their days.

import type { DateRange } from "./date-range.js";
import type { DayPoint, HourPoint } from "./page-model.js";

export type ChartUnit = "hour" | "day" | "week" | "month";

/** Longest range charted per day (the 90-day preset and any three months fit). */
export const MAX_DAILY_DAYS = 92;
/** Longest range charted per week (the 12-month preset and a leap year fit). */
export const MAX_WEEKLY_DAYS = 366;

export interface ChartPoint {
  /** `2026-04-01T09` for an hour, `2026-04-01` for a day, `2026-03-30/2026-04-05` for a week or month. */
  key: string;
  /** The first and last day the point covers within the range: a week or month at either end may be cut short. */
  from: string;
  to: string;
  /** Set for an hour: `00` to `23` (UTC). */
  hour?: string;
  visitors: number;
  pageviews: number;
}

export interface Chart {
  unit: ChartUnit;
  points: ChartPoint[];
}

export function chartUnit(days: number): ChartUnit {
  if (days <= 1) return "hour";
  if (days <= MAX_DAILY_DAYS) return "day";
  if (days <= MAX_WEEKLY_DAYS) return "week";
  return "month";
}

/**
 * `days` holds every day of `range` in order; `hours` the hours of day summed over the range,
 * which for a range of one day are that day's hours. Visitors of a week or month are its
 * days' unique visitors added up, as the statistics API counts visitors over any range.
 */
export function chartPoints(range: DateRange, days: readonly DayPoint[], hours: readonly HourPoint[]): Chart {
  const unit = chartUnit(range.days);
  if (unit === "hour") {
    const points = hours.map((point) => ({
      key: `${range.from}T${point.hour}`,
      from: range.from,
      to: range.from,
      hour: point.hour,
      visitors: point.visitors,
      pageviews: point.pageviews,
    }));
    return { unit, points };
  }
  if (unit === "day") {
    return {
      unit,
      points: days.map((point) => ({ key: point.day, from: point.day, to: point.day, ...counts(point) })),
    };
  }
  const points: ChartPoint[] = [];
  let start = "";
  for (const point of days) {
    const bucket = unit === "week" ? mondayOf(point.day) : `${point.day.slice(0, 7)}-01`;
    const last = points[points.length - 1];
    if (last && bucket === start) {
      last.to = point.day;
      last.key = `${last.from}/${point.day}`;
      last.visitors += point.visitors;
      last.pageviews += point.pageviews;
    } else {
      start = bucket;
      points.push({ key: `${point.day}/${point.day}`, from: point.day, to: point.day, ...counts(point) });
    }
  }
  return { unit, points };
}

function counts(point: DayPoint): { visitors: number; pageviews: number } {
  return { visitors: point.visitors, pageviews: point.pageviews };
}

/** The Monday (UTC) of the week of `day`, as the weekly reports start theirs. */
function mondayOf(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + 6) % 7; // getUTCDay: 0 is Sunday
  date.setUTCDate(date.getUTCDate() - sinceMonday);
  return date.toISOString().slice(0, 10);
}
