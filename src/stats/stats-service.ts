// Reading a statistic of one of the caller's websites: checks the range and ownership,
// reads the filters, builds the StatsQuery and lets the event store answer it.

import { NotFoundError, ValidationError } from "../errors.js";
import type { EventStore, WebsiteRepository } from "../storage/ports.js";
import { type StatDefinition, statByName } from "./catalog.js";
import { parseFilters, type StatsFilter } from "./stats-filter.js";
import type { StatsPage } from "./stats-query.js";

/** A page size that holds every row of any statistic (the CSV export asks for all of them). */
export const ALL_ROWS = 2 ** 31 - 1;

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

/** The statistics of one website under one set of filters, its ownership checked once. */
export interface WebsiteStats {
  /** The website's time zone: the days and hours read are its local ones. */
  zone: string;
  read(request: Omit<StatsRequest, "filters">): Promise<StatsPage>;
}

/** Refuses a range that ends before it starts. */
export function checkRange(from: string, to: string): void {
  if (from > to) throw ValidationError.single("to", "The to must be a date after or equal to from.");
}

export class StatsService {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly events: EventStore,
  ) {}

  /** One statistic: the request is checked (name, range, filters) before the website is looked up. */
  async read(userId: number, websiteId: number, request: StatsRequest): Promise<StatsPage> {
    statOf(request);
    return (await this.forWebsite(userId, websiteId, request.filters)).read(request);
  }

  /**
   * For the answers built of several statistics (time series, totals): the filters are read
   * and the website's owner checked once, not once per statistic.
   */
  async forWebsite(userId: number, websiteId: number, filtersParam?: string): Promise<WebsiteStats> {
    let filters: StatsFilter[] = [];
    if (filtersParam !== undefined) {
      const parsed = parseFilters(filtersParam);
      if ("problem" in parsed) throw ValidationError.single("filters", parsed.problem);
      filters = parsed.filters;
    }
    const website = await this.websites.find(userId, websiteId);
    if (!website) throw new NotFoundError();
    return {
      zone: website.timezone,
      read: (request) =>
        this.events.queryStat({
          websiteId,
          stat: statOf(request),
          zone: website.timezone,
          from: request.from,
          to: request.to,
          filters,
          search: request.search?.trim().toLowerCase() || null,
          sortBy: request.sortBy,
          sort: request.sort,
          limit: request.perPage,
          offset: (request.page - 1) * request.perPage,
        }),
    };
  }
}

/** The request's statistic, its range checked. */
function statOf(request: Omit<StatsRequest, "filters">): StatDefinition {
  const stat = statByName(request.name);
  if (!stat) throw ValidationError.single("name", `The name ${request.name} is not a statistic.`);
  checkRange(request.from, request.to);
  return stat;
}
