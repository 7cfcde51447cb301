// Everything a stats page shows, read through the same StatsService as GET /api/v1/stats:
// the daily series and totals of the range and of the period before it, the hours, and the
// top values of each list. No SQL here; the event store answers from its aggregates.

import type { StatName } from "../stats/catalog.js";
import type { StatsRow } from "../stats/stats-query.js";
import type { StatsRequest, StatsService } from "../stats/stats-service.js";
import type { WebsiteRecord } from "../storage/ports.js";
import { type DateRange, daysOf, previousRange } from "./date-range.js";

/** Rows shown per list. */
export const TOP_ROWS = 10;

export interface ListSpec {
  stat: StatName;
  title: string;
  /** Heading of the value column. */
  column: string;
  /** What the count column counts. */
  counts: "Visitors" | "Pageviews" | "Visits" | "Events";
}

/** The lists of the page, in the order shown. */
export const LISTS: readonly ListSpec[] = [
  { stat: "page", column: "Page", title: "Pages", counts: "Pageviews" },
  { stat: "landing_page", column: "Page", title: "Landing pages", counts: "Visits" },
  { stat: "referrer", column: "Source", title: "Referrers", counts: "Visits" },
  { stat: "campaign", column: "Campaign", title: "Campaigns", counts: "Visits" },
  { stat: "country", column: "Country", title: "Countries", counts: "Visitors" },
  { stat: "city", column: "City", title: "Cities", counts: "Visitors" },
  { stat: "continent", column: "Continent", title: "Continents", counts: "Visitors" },
  { stat: "browser", column: "Browser", title: "Browsers", counts: "Visitors" },
  { stat: "os", column: "System", title: "Operating systems", counts: "Visitors" },
  { stat: "device", column: "Device", title: "Devices", counts: "Visitors" },
  { stat: "resolution", column: "Resolution", title: "Screen resolutions", counts: "Visitors" },
  { stat: "language", column: "Language", title: "Languages", counts: "Visitors" },
  { stat: "event", column: "Event", title: "Events", counts: "Events" },
];

/** A type, not an interface: groupDays adds up any record of numbers. */
export type DayPoint = {
  day: string;
  visitors: number;
  pageviews: number;
};

export interface HourPoint {
  hour: string;
  visitors: number;
  pageviews: number;
}

export interface Total {
  current: number;
  previous: number;
}

export interface TopList extends ListSpec {
  rows: StatsRow[];
  /** Distinct values over the range (the list may show fewer). */
  total: number;
}

export interface StatsPageModel {
  domain: string;
  range: DateRange;
  previous: DateRange;
  series: DayPoint[];
  hours: HourPoint[];
  visitors: Total;
  pageviews: Total;
  lists: TopList[];
}

export async function buildPageModel(
  stats: StatsService,
  website: WebsiteRecord,
  range: DateRange,
): Promise<StatsPageModel> {
  const read = (name: StatName, period: DateRange, options: Partial<StatsRequest> = {}) =>
    stats.read(website.userId, website.id, {
      name,
      from: period.from,
      to: period.to,
      sortBy: "count",
      sort: "desc",
      perPage: TOP_ROWS,
      page: 1,
      ...options,
    });
  const previous = previousRange(range);
  const daily = { sortBy: "value", sort: "asc", perPage: range.days } as const;
  const hourly = { sortBy: "value", sort: "asc", perPage: 24 } as const;
  const [visitors, pageviews, visitorsBefore, pageviewsBefore, visitorHours, pageviewHours, ...lists] =
    await Promise.all([
      read("visitors", range, daily),
      read("pageviews", range, daily),
      read("visitors", previous, daily),
      read("pageviews", previous, daily),
      read("visitors_hours", range, hourly),
      read("pageviews_hours", range, hourly),
      ...LISTS.map((list) => read(list.stat, range)),
    ]);
  const visitorsByDay = countsByValue(visitors.rows);
  const pageviewsByDay = countsByValue(pageviews.rows);
  const visitorsByHour = countsByValue(visitorHours.rows);
  const pageviewsByHour = countsByValue(pageviewHours.rows);
  return {
    domain: website.domain,
    range,
    previous,
    series: daysOf(range).map((day) => ({
      day,
      visitors: visitorsByDay.get(day) ?? 0,
      pageviews: pageviewsByDay.get(day) ?? 0,
    })),
    hours: Array.from({ length: 24 }, (_, index) => {
      const hour = String(index).padStart(2, "0");
      return { hour, visitors: visitorsByHour.get(hour) ?? 0, pageviews: pageviewsByHour.get(hour) ?? 0 };
    }),
    // Unique visitors over a range are distinct (day, visitor): the sum of the days.
    visitors: { current: sum(visitors.rows), previous: sum(visitorsBefore.rows) },
    pageviews: { current: sum(pageviews.rows), previous: sum(pageviewsBefore.rows) },
    lists: LISTS.map((spec, index) => {
      const page = lists[index] ?? { rows: [], total: 0 };
      return { ...spec, rows: page.rows, total: page.total };
    }),
  };
}

function countsByValue(rows: readonly StatsRow[]): Map<string, number> {
  return new Map(rows.map((row) => [row.value, row.count]));
}

function sum(rows: readonly StatsRow[]): number {
  return rows.reduce((total, row) => total + row.count, 0);
}
