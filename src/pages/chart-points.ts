// The points of the visitors-and-pageviews chart, as fine as the range allows a chart to be
// read: hours for one day, days up to three months, weeks up to a year, months beyond.
// Weeks (Monday to Sunday) and months are those of the email reports and of the API's time
// series (stats/time-series.ts), and add up their days.

import { groupDays } from "../stats/time-series.js";
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

/**
 * The units a range may be charted in, finest first: hours for one day only (a day's hours
 * are read as hours of day), else days and, where a range holds more than one, weeks and months.
 */
export function chartUnits(days: number): ChartUnit[] {
  if (days <= 1) return ["hour"];
  return ["day", ...(days > 7 ? (["week"] as const) : []), ...(days > 31 ? (["month"] as const) : [])];
}

/** The unit a range is charted in unless another of chartUnits is asked for. */
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
export function chartPoints(
  range: DateRange,
  days: readonly DayPoint[],
  hours: readonly HourPoint[],
  unit: ChartUnit = chartUnit(range.days),
): Chart {
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
  const points = groupDays(days, unit).map(({ period, from, to, visitors, pageviews }) => ({
    key: period,
    from,
    to,
    visitors,
    pageviews,
  }));
  return { unit, points };
}
