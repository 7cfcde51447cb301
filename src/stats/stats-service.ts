// Reading a statistic of one of the caller's websites: checks the range and ownership,
// reads the filters, builds the StatsQuery and lets the event store answer it.

import { NotFoundError, ValidationError } from "../errors.js";
import type { EventStore, WebsiteRepository } from "../storage/ports.js";
import { statByName } from "./catalog.js";
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

export class StatsService {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly events: EventStore,
  ) {}

  async read(userId: number, websiteId: number, request: StatsRequest): Promise<StatsPage> {
    const stat = statByName(request.name);
    if (!stat) throw ValidationError.single("name", `The name ${request.name} is not a statistic.`);
    if (request.from > request.to) {
      throw ValidationError.single("to", "The to must be a date after or equal to from.");
    }
    let filters: StatsFilter[] = [];
    if (request.filters !== undefined) {
      const parsed = parseFilters(request.filters);
      if ("problem" in parsed) throw ValidationError.single("filters", parsed.problem);
      filters = parsed.filters;
    }
    if (!(await this.websites.find(userId, websiteId))) throw new NotFoundError();
    return this.events.queryStat({
      websiteId,
      stat,
      from: request.from,
      to: request.to,
      filters,
      search: request.search?.trim().toLowerCase() || null,
      sortBy: request.sortBy,
      sort: request.sort,
      limit: request.perPage,
      offset: (request.page - 1) * request.perPage,
    });
  }
}
