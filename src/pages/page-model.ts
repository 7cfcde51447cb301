// Everything a dashboard shows, read through the same services as the statistics API (so
// it counts exactly what the API counts, filters included): the totals of the range against
// the period before, the daily series, the hours, the top values of each list, or one list
// in full. No SQL here; the event store answers from its aggregates.

import { ValidationError } from "../errors.js";
import type { DropNumbers } from "../stats/dropped-hits.js";
import type { RealtimeService } from "../stats/realtime.js";
import type { StatsFilter } from "../stats/stats-filter.js";
import { formatFilters } from "../stats/stats-filter.js";
import type { StatsRow } from "../stats/stats-query.js";
import { ALL_ROWS, type StatsService, type WebsiteStats } from "../stats/stats-service.js";
import { comparedRange, type Totals, type TotalsRequest, type TotalsService } from "../stats/totals.js";
import type { WebsiteRecord } from "../storage/ports.js";
import type { ChartUnit } from "./chart-points.js";
import type { DashboardComparison, DashboardState, DetailsState } from "./dashboard-state.js";
import { type DateRange, daysOf } from "./date-range.js";
import { LISTS, type ListSpec } from "./stat-lists.js";

export { LISTS, type ListSpec };

/** Rows shown per list on the dashboard. */
export const TOP_ROWS = 10;
/** Rows per page of a list opened in full. */
export const DETAIL_ROWS = 100;

/** The services a dashboard reads. */
export interface DashboardServices {
  stats: StatsService;
  totals: TotalsService;
  realtime: RealtimeService;
}

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

export interface TopList extends ListSpec {
  rows: StatsRow[];
  /** Distinct values over the range (the list may show fewer). */
  total: number;
}

/** What every view of a website's statistics says about itself. */
interface ViewBase {
  domain: string;
  /** The website's time zone: days and hours are its local ones. */
  zone: string;
  range: DateRange;
  filters: StatsFilter[];
  /** The chart's unit asked for, or null for the range's own. */
  unit: ChartUnit | null;
  compare: DashboardComparison;
  /** The days compared with when `compare` is "range" (else null). */
  compareRange: DateRange | null;
}

export interface StatsPageModel extends ViewBase {
  series: DayPoint[];
  hours: HourPoint[];
  totals: { current: Totals; previous: Totals };
  lists: TopList[];
  /** Right now, whatever the range and filters: unique visitors of the last 5 minutes, pageviews of the last 30. */
  now: { visitors: number; pageviews: number };
  /** The hits collection dropped in the range, by reason: for the owner's unfiltered view alone (else null). */
  keptOut: DropNumbers | null;
}

/** What the owner's view reads beyond the page's: the hits dropped over a range. */
export type KeptOut = (from: string, to: string) => Promise<DropNumbers>;

export interface DetailsModel extends ViewBase {
  details: DetailsState;
  rows: StatsRow[];
  /** Values matching the search over the range. */
  total: number;
}

function statsOf(
  services: DashboardServices,
  website: WebsiteRecord,
  filters: StatsFilter[],
): Promise<WebsiteStats> {
  const param = filters.length > 0 ? formatFilters(filters) : undefined;
  return services.stats.forWebsite(website.userId, website.id, param);
}

export async function buildPageModel(
  services: DashboardServices,
  website: WebsiteRecord,
  state: DashboardState,
  keptOut: KeptOut | null = null,
): Promise<StatsPageModel> {
  const { range, filters } = state;
  const stats = await statsOf(services, website, filters);
  const top = (list: ListSpec) =>
    ({ name: list.stat, sortBy: "count", sort: "desc", perPage: TOP_ROWS, page: 1 }) as const;
  const hourly = { sortBy: "value", sort: "asc", perPage: 24, page: 1 } as const;
  const asked = {
    from: range.from,
    to: range.to,
    compare: state.compare,
    compareFrom: state.compareRange?.from,
    compareTo: state.compareRange?.to,
    filters: filters.length > 0 ? formatFilters(filters) : undefined,
  } as const;
  // Days before 1970 hold no events (day-rule.ts), and the totals refuse to compare with
  // them: a page of January 1970 compares with zeros, which is what those days hold.
  const beforeEvents = comparesBefore1970(asked);
  const [dropped, realtime, { answer: totals, days: byDay }, [visitorHours, pageviewHours, ...lists]] =
    await Promise.all([
      // Not under filters: a dropped hit has no page, referrer or browser to filter by.
      filters.length === 0 ? (keptOut?.(range.from, range.to) ?? null) : null,
      // Not flushing the write buffer: a write would have the other reads find today's
      // changes again, on every view of a live site.
      services.realtime.readWritten(website.userId, website.id),
      // The series' days read with the totals, which add them up.
      services.totals.readWithDays(
        website.userId,
        website.id,
        beforeEvents ? { ...asked, compare: "none" } : asked,
        ["visitors", "pageviews"],
      ),
      // Read together: a store may share what several read (the lists of visitors, filtered).
      stats.readMany(range.from, range.to, [
        { name: "visitors_hours", ...hourly },
        { name: "pageviews_hours", ...hourly },
        ...LISTS.map(top),
      ]),
    ]);
  const visitorsByHour = countsByValue(visitorHours?.rows ?? []);
  const pageviewsByHour = countsByValue(pageviewHours?.rows ?? []);
  return {
    domain: website.domain,
    zone: stats.zone,
    range,
    filters,
    unit: state.unit,
    compare: state.compare,
    compareRange: state.compareRange,
    series: daysOf(range).map((day) => ({
      day,
      visitors: byDay.visitors?.[day] ?? 0,
      pageviews: byDay.pageviews?.[day] ?? 0,
    })),
    hours: Array.from({ length: 24 }, (_, index) => {
      const hour = String(index).padStart(2, "0");
      return { hour, visitors: visitorsByHour.get(hour) ?? 0, pageviews: pageviewsByHour.get(hour) ?? 0 };
    }),
    totals: {
      current: totals.totals,
      previous: beforeEvents ? NO_TOTALS : (totals.comparison ?? totals).totals,
    },
    lists: LISTS.map((spec, index) => {
      const page = lists[index] ?? { rows: [], total: 0 };
      return { ...spec, rows: page.rows, total: page.total };
    }),
    now: {
      visitors: realtime.visitors,
      pageviews: realtime.pageviews.reduce((sum, minute) => sum + minute.count, 0),
    },
    keptOut: dropped,
  };
}

type DetailsView = DashboardState & { details: DetailsState };

/** A page of a list's rows matching the search, most counted first, and the zone they count in. */
async function readList(
  services: DashboardServices,
  website: WebsiteRecord,
  state: DetailsView,
  perPage: number,
  page: number,
) {
  const { range, filters, details } = state;
  const stats = await statsOf(services, website, filters);
  const rows = await stats.read({
    name: details.list.stat,
    from: range.from,
    to: range.to,
    search: details.search || undefined,
    sortBy: "count",
    sort: "desc",
    perPage,
    page,
  });
  return { zone: stats.zone, ...rows };
}

/** One list in full: the page of it the state asks for. */
export async function buildDetailsModel(
  services: DashboardServices,
  website: WebsiteRecord,
  state: DetailsView,
): Promise<DetailsModel> {
  const { zone, rows, total } = await readList(services, website, state, DETAIL_ROWS, state.details.page);
  const { range, filters, details } = state;
  return {
    domain: website.domain,
    zone,
    range,
    filters,
    unit: state.unit,
    compare: state.compare,
    compareRange: state.compareRange,
    details,
    rows,
    total,
  };
}

/** Every row of a list matching the state's search, over its range and filters (its CSV). */
export async function allRows(
  services: DashboardServices,
  website: WebsiteRecord,
  state: DetailsView,
): Promise<StatsRow[]> {
  return (await readList(services, website, state, ALL_ROWS, 1)).rows;
}

function countsByValue(rows: readonly StatsRow[]): Map<string, number> {
  return new Map(rows.map((row) => [row.value, row.count]));
}

/** The totals of days without events. */
const NO_TOTALS: Totals = {
  visitors: 0,
  visits: 0,
  pageviews: 0,
  views_per_visit: null,
  bounce_rate: null,
  visit_duration: null,
  events: 0,
};

/** Whether the totals would refuse `request`'s comparison as starting before 1970 (totals.ts). */
function comparesBefore1970(request: TotalsRequest): boolean {
  try {
    comparedRange(request);
    return false;
  } catch (error) {
    if (error instanceof ValidationError && "compare" in error.fields) return true;
    throw error;
  }
}
