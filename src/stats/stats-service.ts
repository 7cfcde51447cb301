// Reading a statistic of one of the caller's websites: checks the range and ownership,
// reads the filters, builds the StatsQuery and lets the event store answer it. A ratio
// (catalog RATIOS) is two statistics of days divided here, day by day. The stores are asked
// only about days that can hold events: no event is later than the server's clock (imports
// refuse one more than 5 minutes ahead), so a range reaching into the future is read to
// tomorrow. Without that, a range to 9000-12-31 in a zone with daylight saving took 42 s to
// find its 14,000 offset changes, and gave the engine a statement with as many.

import type { Clock } from "../clock.js";
import { NotFoundError, ValidationError } from "../errors.js";
import type { EventStore, WebsiteRepository } from "../storage/ports.js";
import {
  type RatioDefinition,
  ratioByName,
  ratioValue,
  type StatDefinition,
  type StatName,
  statByName,
} from "./catalog.js";
import { parseFilters, type StatsFilter } from "./stats-filter.js";
import { ALL_ROWS, type DayCounts, type StatsBatch, type StatsPage } from "./stats-query.js";
import { zoneRule } from "./time-zone.js";

export { ALL_ROWS };

const DAY_MS = 86_400_000;

export interface StatsRequest {
  name: string;
  from: string;
  to: string;
  /** The `filters` parameter as given (stats-filter.ts), or undefined for none. */
  filters?: string | undefined;
  search?: string | undefined;
  sortBy: "count" | "value";
  sort: "asc" | "desc";
  perPage: number;
  page: number;
}

/** A statistic's page of a range that readMany reads. */
export type ListRequest = Omit<StatsRequest, "filters" | "from" | "to">;

/** The statistics of one website under one set of filters, its ownership checked once. */
export interface WebsiteStats {
  /** The website's time zone: the days and hours read are its local ones. */
  zone: string;
  read(request: Omit<StatsRequest, "filters">): Promise<StatsPage>;
  /**
   * Several statistics of the catalog (not ratios) over one range, each with its own page,
   * read together (a dashboard's lists): for each what `read` gives.
   */
  readMany(from: string, to: string, requests: readonly ListRequest[]): Promise<StatsPage[]>;
  /** Statistics of days (catalog dimension "day") over one range, read together: each one's count by day. */
  readDays(names: readonly StatName[], from: string, to: string): Promise<DayCounts>;
}

/** The filters of a `filters` parameter (none when absent); a ValidationError naming what is wrong. */
export function checkFilters(filtersParam: string | undefined): StatsFilter[] {
  if (filtersParam === undefined) return [];
  const parsed = parseFilters(filtersParam);
  if ("problem" in parsed) throw ValidationError.single("filters", parsed.problem);
  return parsed.filters;
}

/** Refuses a range that ends before it starts. */
export function checkRange(from: string, to: string): void {
  if (from > to) throw ValidationError.single("to", "The to must be a date after or equal to from.");
}

export class StatsService {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly events: EventStore,
    private readonly clock: Clock,
  ) {}

  /** One statistic: the request is checked (name, range, filters) before the website is looked up. */
  async read(userId: number, websiteId: number, request: StatsRequest): Promise<StatsPage> {
    if (!ratioByName(request.name)) statOf(request);
    return (await this.forWebsite(userId, websiteId, request.filters)).read(request);
  }

  /**
   * For the answers built of several statistics (time series, totals): the filters are read
   * and the website's owner checked once, not once per statistic.
   */
  async forWebsite(userId: number, websiteId: number, filtersParam?: string): Promise<WebsiteStats> {
    const filters = checkFilters(filtersParam);
    const website = await this.websites.find(userId, websiteId);
    if (!website) throw new NotFoundError();
    // Tomorrow in the website's zone: a day of margin for the clocks of a cluster's servers.
    const lastDay = zoneRule(website.timezone).dateOf(this.clock.now().getTime() + DAY_MS);
    const lastOf = (to: string) => (to < lastDay ? to : lastDay);
    const read = (request: Omit<StatsRequest, "filters">): Promise<StatsPage> => {
      const ratio = ratioByName(request.name);
      if (ratio) {
        checkRange(request.from, request.to);
        return readRatio(ratio, request, read);
      }
      const stat = statOf(request);
      if (request.from > lastDay) return Promise.resolve({ rows: [], total: 0 });
      const window = {
        websiteId,
        zone: website.timezone,
        from: request.from,
        to: lastOf(request.to),
        filters,
      };
      return this.events.queryStat({ ...window, ...pageOf(stat, request) });
    };
    const readMany = (from: string, to: string, requests: readonly ListRequest[]): Promise<StatsPage[]> => {
      const stats = requests.map((request) => statOf({ ...request, from, to }));
      if (from > lastDay) return Promise.resolve(requests.map(() => ({ rows: [], total: 0 })));
      const pages = requests.map((request, i) => pageOf(stats[i] as StatDefinition, request));
      return this.events.queryStats({
        websiteId,
        zone: website.timezone,
        from,
        to: lastOf(to),
        filters,
        pages,
      });
    };
    const readDays = (names: readonly StatName[], from: string, to: string): Promise<DayCounts> => {
      checkRange(from, to);
      const stats = names.map((name) => statByName(name) as StatDefinition);
      if (from > lastDay) return Promise.resolve(Object.fromEntries(names.map((name) => [name, {}])));
      return this.events.queryDays({
        websiteId,
        zone: website.timezone,
        from,
        to: lastOf(to),
        filters,
        stats,
      });
    };
    return { zone: website.timezone, read, readMany, readDays };
  }
}

/** What a request asks of its statistic: which values, in which order, which page. */
function pageOf(stat: StatDefinition, request: ListRequest): StatsBatch["pages"][number] {
  return {
    stat,
    search: searchNeedle(request.search),
    sortBy: request.sortBy,
    sort: request.sort,
    limit: request.perPage,
    offset: (request.page - 1) * request.perPage,
  };
}

/** What a search looks for: trimmed, lowercase (values are matched case-insensitively), or nothing. */
function searchNeedle(search: string | undefined): string | null {
  return search?.trim().toLowerCase() || null;
}

/**
 * A ratio's rows: each day with visits (its `per`), the ratio of that day's `of` to them,
 * then searched, sorted (equal counts by value) and paged as an engine does.
 */
async function readRatio(
  ratio: RatioDefinition,
  request: Omit<StatsRequest, "filters">,
  read: (request: Omit<StatsRequest, "filters">) => Promise<StatsPage>,
): Promise<StatsPage> {
  const all = (name: StatName) =>
    read({ ...request, name, search: undefined, sortBy: "value", sort: "asc", perPage: ALL_ROWS, page: 1 });
  const [of, per] = await Promise.all([all(ratio.of), all(ratio.per)]);
  const numerators = new Map(of.rows.map((row) => [row.value, row.count]));
  const needle = searchNeedle(request.search);
  const rows = per.rows
    .filter((row) => needle === null || row.value.toLowerCase().includes(needle))
    .map((row) => ({
      value: row.value,
      count: ratioValue(ratio, numerators.get(row.value) ?? 0, row.count) ?? 0,
    }));
  const sign = request.sort === "asc" ? 1 : -1;
  const byValue = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0); // days: ASCII
  rows.sort((a, b) =>
    request.sortBy === "value"
      ? sign * byValue(a.value, b.value)
      : sign * (a.count - b.count) || byValue(a.value, b.value),
  );
  const offset = (request.page - 1) * request.perPage;
  return { rows: rows.slice(offset, offset + request.perPage), total: rows.length };
}

/** The request's statistic (not a ratio: those are read as two), its range checked. */
function statOf(request: Omit<StatsRequest, "filters">): StatDefinition {
  const stat = statByName(request.name);
  if (!stat) throw ValidationError.single("name", `The name ${request.name} is not a statistic.`);
  checkRange(request.from, request.to);
  return stat;
}
