// The questions event stores answer, validated and engine-neutral: one statistic of a
// website over days of its time zone, counting which events, searched, sorted and paged (StatsQuery);
// several statistics of days at once (DaysQuery, for totals and time series); and what is
// happening now (RealtimeQuery, see realtime.ts). Stores compile them for their engine.

import type { StatDefinition } from "./catalog.js";
import type { StatsFilter } from "./stats-filter.js";

/** A page size that holds every row of any statistic (the CSV export asks for all of them). */
export const ALL_ROWS = 2 ** 31 - 1;

export interface StatsQuery {
  websiteId: number;
  stat: StatDefinition;
  /**
   * The website's time zone (IANA name, stats/time-zone.ts): the days and hours counted are
   * its local ones. An engine whose aggregates were counted in another zone (the setting
   * just changed) counts from raw events until it has counted them again (EventStore.setZone).
   */
  zone: string;
  /** First and last local day, inclusive, YYYY-MM-DD. */
  from: string;
  to: string;
  /** The events counted are those every filter holds for (stats-filter.ts); none: all. */
  filters: readonly StatsFilter[];
  /** Lowercase needle matched literally anywhere in the value, or null. */
  search: string | null;
  sortBy: "count" | "value";
  sort: "asc" | "desc";
  limit: number;
  offset: number;
}

export interface StatsRow {
  value: string;
  count: number;
}

export interface StatsPage {
  rows: StatsRow[];
  /** How many distinct values match (over all pages). */
  total: number;
}

/**
 * Several statistics of days (catalog dimension "day") over one window and one set of
 * filters, for the answers built of them (totals, time series): an engine may count them
 * together, sharing the reading of the window's events.
 */
export interface DaysQuery extends Pick<StatsQuery, "websiteId" | "zone" | "from" | "to" | "filters"> {
  stats: readonly StatDefinition[];
}

/**
 * Several statistics over one window and one set of filters, each with its own page (a
 * dashboard's lists): an engine may count them together, sharing what they read.
 */
export interface StatsBatch extends Pick<StatsQuery, "websiteId" | "zone" | "from" | "to" | "filters"> {
  pages: readonly Pick<StatsQuery, "stat" | "search" | "sortBy" | "sort" | "limit" | "offset">[];
}

/** The StatsQuery of each page of a batch, in order (the batch's window whatever a page holds). */
export function batchQueries({ websiteId, zone, from, to, filters, pages }: StatsBatch): StatsQuery[] {
  return pages.map(({ stat, search, sortBy, sort, limit, offset }) => ({
    websiteId,
    zone,
    from,
    to,
    filters,
    stat,
    search,
    sortBy,
    sort,
    limit,
    offset,
  }));
}

/** A StatsBatch answered one statistic at a time, all asked at once: for an engine with nothing to share. */
export function statsOneByOne(
  batch: StatsBatch,
  queryStat: (query: StatsQuery) => Promise<StatsPage>,
): Promise<StatsPage[]> {
  return Promise.all(batchQueries(batch).map(queryStat));
}

/** Each statistic's count by local day (YYYY-MM-DD), under its name; days it does not list left out. */
export type DayCounts = Record<string, Record<string, number>>;

/**
 * A DaysQuery answered one statistic at a time (what queryStat lists for each): for an
 * engine that has nothing to share between them.
 */
export async function daysOneByOne(
  query: DaysQuery,
  queryStat: (query: StatsQuery) => Promise<StatsPage>,
): Promise<DayCounts> {
  const { stats, ...window } = query;
  const counts: DayCounts = {};
  await Promise.all(
    stats.map(async (stat) => {
      const page = await queryStat({
        ...window,
        stat,
        search: null,
        sortBy: "value",
        sort: "asc",
        limit: ALL_ROWS,
        offset: 0,
      });
      counts[stat.name] = Object.fromEntries(page.rows.map((row) => [row.value, row.count]));
    }),
  );
  return counts;
}

export const REALTIME_VISITOR_MS = 5 * 60_000;
export const REALTIME_MINUTES = 30;

/** What an event store counts for realtime, over instants it is given (ms, inclusive). */
export interface RealtimeQuery {
  websiteId: number;
  /** Unique visitors (distinct per UTC day, as everywhere) with a pageview from here to `until`. */
  visitorsFrom: number;
  /** Pageviews per UTC minute from here (a minute's start) to `until`. */
  minutesFrom: number;
  until: number;
}

export interface RealtimeCounts {
  visitors: number;
  /** The minutes with pageviews: each minute's start (ms) and its pageviews. */
  minutes: { minute: number; pageviews: number }[];
}
