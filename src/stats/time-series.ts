// Pageviews and unique visitors over time: by hour, day, week (Monday to Sunday) or month,
// every period of the range listed in order, empty ones with zeros. Derived from the
// catalog's statistics (pageviews and visitors per day, and per hour of one day), so a
// series counts exactly what they count, filters included. A week's or month's visitors
// are its days' unique visitors added up, as over any range.

import { ValidationError } from "../errors.js";
import { daysBetween, daysFrom, mondayOf } from "./day-rule.js";
import type { StatsPage } from "./stats-query.js";
import { ALL_ROWS, checkRange, type StatsService } from "./stats-service.js";
import { zoneRule } from "./time-zone.js";

export const SERIES_INTERVALS = ["hour", "day", "week", "month"] as const;
export type SeriesInterval = (typeof SERIES_INTERVALS)[number];
/** Longest range read by the hour: each day is read on its own (24 points a day). */
export const MAX_HOURLY_DAYS = 7;

export interface SeriesPoint {
  /** `2026-04-01T09` for an hour, `2026-04-01` for a day, `2026-03-30/2026-04-05` for a week or month. */
  period: string;
  /** The first and last day the point covers within the range: a week or month at either end may be cut short. */
  from: string;
  to: string;
  pageviews: number;
  visitors: number;
}

export interface DayCounts {
  day: string;
  pageviews: number;
  visitors: number;
}

export interface SeriesRequest {
  from: string;
  to: string;
  interval: SeriesInterval;
  filters?: string | undefined;
}

/** Days (every day of a range, in order) as points of the interval, weeks and months adding up their days. */
export function groupDays(
  days: readonly DayCounts[],
  interval: Exclude<SeriesInterval, "hour">,
): SeriesPoint[] {
  const points: SeriesPoint[] = [];
  let bucket = "";
  for (const { day, pageviews, visitors } of days) {
    const start = interval === "day" ? day : interval === "week" ? mondayOf(day) : `${day.slice(0, 7)}-01`;
    const last = points[points.length - 1];
    if (last && start === bucket) {
      last.to = day;
      last.period = `${last.from}/${day}`;
      last.pageviews += pageviews;
      last.visitors += visitors;
    } else {
      bucket = start;
      const period = interval === "day" ? day : `${day}/${day}`;
      points.push({ period, from: day, to: day, pageviews, visitors });
    }
  }
  return points;
}

export class TimeSeriesService {
  constructor(private readonly stats: StatsService) {}

  async read(userId: number, websiteId: number, request: SeriesRequest): Promise<SeriesPoint[]> {
    const { from, to, interval, filters } = request;
    checkRange(from, to);
    if (interval === "hour" && daysBetween(from, to) > MAX_HOURLY_DAYS) {
      throw ValidationError.single(
        "interval",
        `The interval hour is for ranges of at most ${MAX_HOURLY_DAYS} days; this one has ${daysBetween(from, to)}.`,
      );
    }
    const website = await this.stats.forWebsite(userId, websiteId, filters);
    // Every value of a statistic of days or hours, in one page.
    const read = (name: string, first: string, last: string): Promise<StatsPage> =>
      website.read({ name, from: first, to: last, sortBy: "value", sort: "asc", perPage: ALL_ROWS, page: 1 });
    if (interval !== "hour") {
      const [pageviews, visitors] = await Promise.all([
        read("pageviews", from, to),
        read("visitors", from, to),
      ]);
      const [views, people] = [counts(pageviews), counts(visitors)];
      const days = daysFrom(from, to).map((day) => ({
        day,
        pageviews: views.get(day) ?? 0,
        visitors: people.get(day) ?? 0,
      }));
      return groupDays(days, interval);
    }
    // By the hour: each day's hours of day are that day's hours, those its clock shows: a
    // day that springs forward has no 02, one that falls back one 02 holding both.
    const zone = zoneRule(website.zone);
    const days = daysFrom(from, to);
    const perDay = await Promise.all(
      days.map((day) => Promise.all([read("pageviews_hours", day, day), read("visitors_hours", day, day)])),
    );
    return days.flatMap((day, index) => {
      const [pageviews, visitors] = perDay[index] as [StatsPage, StatsPage];
      const [views, people] = [counts(pageviews), counts(visitors)];
      return hoursOf(zone, day).map((hh) => {
        return {
          period: `${day}T${hh}`,
          from: day,
          to: day,
          pageviews: views.get(hh) ?? 0,
          visitors: people.get(hh) ?? 0,
        };
      });
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
