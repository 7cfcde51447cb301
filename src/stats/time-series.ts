// Pageviews, unique visitors and visits over time: by hour, day, week (Monday to Sunday) or
// month, every period of the range listed in order, empty ones with zeros. Derived from the
// catalog's statistics (pageviews, visitors and visits per day, and per hour of one day), so
// a series counts exactly what they count, filters included. A week's or month's visitors
// are its days' unique visitors added up, as over any range.

import { ValidationError } from "../errors.js";
import { daysBetween, daysFrom, MAX_GROUPED_DAYS, MAX_LISTED_DAYS, mondayOf } from "./day-rule.js";
import type { StatsPage } from "./stats-query.js";
import { ALL_ROWS, checkRange, type StatsService } from "./stats-service.js";
import { zoneRule } from "./time-zone.js";

export const SERIES_INTERVALS = ["hour", "day", "week", "month"] as const;
export type SeriesInterval = (typeof SERIES_INTERVALS)[number];
/** Longest range read by the hour: each day is read on its own (24 points a day). */
export const MAX_HOURLY_DAYS = 7;
/** The longest range of each interval, in days (day-rule.ts says why days and weeks are bounded). */
export const SERIES_MAX_DAYS: Record<SeriesInterval, number> = {
  hour: MAX_HOURLY_DAYS,
  day: MAX_LISTED_DAYS,
  week: MAX_GROUPED_DAYS,
  month: MAX_GROUPED_DAYS,
};

export interface SeriesPoint {
  /** `2026-04-01T09` for an hour, `2026-04-01` for a day, `2026-03-30/2026-04-05` for a week or month. */
  period: string;
  /** The first and last day the point covers within the range: a week or month at either end may be cut short. */
  from: string;
  to: string;
  pageviews: number;
  visitors: number;
  /** Visits that began in the period. */
  visits: number;
}

/** What a point counts, each from a statistic of days and one of hours of day. */
const COUNTED = {
  pageviews: { days: "pageviews", hours: "pageviews_hours" },
  visitors: { days: "visitors", hours: "visitors_hours" },
  visits: { days: "visits", hours: "visits_hours" },
} as const;
type Counted = keyof typeof COUNTED;
type Counts = Record<Counted, number>;

export interface SeriesRequest {
  from: string;
  to: string;
  interval: SeriesInterval;
  filters?: string | undefined;
}

/** The days and numbers a point covers: `period` names it (see SeriesPoint). */
export type Period = Pick<SeriesPoint, "period" | "from" | "to">;

/**
 * Days (every day of a range, in order, each with the same numbers) as points of the
 * interval, weeks and months adding up their days' numbers.
 */
export function groupDays<D extends { day: string } & { [K in Exclude<keyof D, "day">]: number }>(
  days: readonly D[],
  interval: Exclude<SeriesInterval, "hour">,
): (Period & Omit<D, "day">)[] {
  const points: (Period & Omit<D, "day">)[] = [];
  let bucket = "";
  for (const { day, ...numbers } of days) {
    const start = interval === "day" ? day : interval === "week" ? mondayOf(day) : `${day.slice(0, 7)}-01`;
    const last = points[points.length - 1];
    if (last && start === bucket) {
      last.to = day;
      last.period = `${last.from}/${day}`;
      const sums = last as Record<string, number | string>;
      for (const [key, value] of Object.entries(numbers))
        sums[key] = (sums[key] as number) + (value as number);
    } else {
      bucket = start;
      const period = interval === "day" ? day : `${day}/${day}`;
      points.push({ period, from: day, to: day, ...numbers });
    }
  }
  return points;
}

/** Refuses a range too long for its interval's points (SERIES_MAX_DAYS). */
export function checkSeriesLength(from: string, to: string, interval: SeriesInterval): void {
  if (daysBetween(from, to) > SERIES_MAX_DAYS[interval]) {
    throw ValidationError.single(
      "interval",
      `The interval ${interval} is for ranges of at most ${SERIES_MAX_DAYS[interval]} days; this one has ${daysBetween(from, to)}.`,
    );
  }
}

export class TimeSeriesService {
  constructor(private readonly stats: StatsService) {}

  async read(userId: number, websiteId: number, request: SeriesRequest): Promise<SeriesPoint[]> {
    const { from, to, interval, filters } = request;
    checkRange(from, to);
    checkSeriesLength(from, to, interval);
    const website = await this.stats.forWebsite(userId, websiteId, filters);
    // Every value of a statistic of hours, in one page.
    const read = (name: string, first: string, last: string): Promise<StatsPage> =>
      website.read({ name, from: first, to: last, sortBy: "value", sort: "asc", perPage: ALL_ROWS, page: 1 });
    /** Each counted number's rows by hour of day, from the statistics of hours. */
    const hoursOfDay = async (day: string) => {
      const keys = Object.keys(COUNTED) as Counted[];
      const pages = await Promise.all(keys.map((key) => read(COUNTED[key].hours, day, day)));
      const byValue = pages.map(counts);
      return (value: string): Counts => {
        const point = {} as Counts;
        keys.forEach((key, i) => {
          point[key] = byValue[i]?.get(value) ?? 0;
        });
        return point;
      };
    };
    if (interval !== "hour") {
      // The statistics of days read together (the range's events read once for all three).
      const keys = Object.keys(COUNTED) as Counted[];
      const byDay = await website.readDays(
        keys.map((key) => COUNTED[key].days),
        from,
        to,
      );
      const of = (day: string): Counts => {
        const point = {} as Counts;
        for (const key of keys) point[key] = byDay[COUNTED[key].days]?.[day] ?? 0;
        return point;
      };
      return groupDays(
        daysFrom(from, to).map((day) => ({ day, ...of(day) })),
        interval,
      );
    }
    // By the hour: each day's hours of day are that day's hours, those its clock shows: a
    // day that springs forward has no 02, one that falls back one 02 holding both.
    const zone = zoneRule(website.zone);
    const days = daysFrom(from, to);
    const perDay = await Promise.all(days.map(hoursOfDay));
    return days.flatMap((day, index) => {
      const of = perDay[index] as Awaited<ReturnType<typeof hoursOfDay>>;
      return hoursOf(zone, day).map((hh) => ({ period: `${day}T${hh}`, from: day, to: day, ...of(hh) }));
    });
  }
}

/** The hours of day (00-23) the local day `day` shows, in order, each once. */
function hoursOf(zone: ReturnType<typeof zoneRule>, day: string): string[] {
  const { start, end } = zone.rangeOf(day, day);
  const hours = new Set<string>();
  for (let instant = start; instant < end; instant += 900_000) {
    hours.add(String(zone.hourOf(instant)).padStart(2, "0"));
  }
  return [...hours];
}

function counts(page: StatsPage): Map<string, number> {
  return new Map(page.rows.map((row) => [row.value, row.count]));
}
