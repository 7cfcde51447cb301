// Reading a statistic of one of the caller's websites: checks the range and ownership,
// builds the StatsQuery and lets the event store answer it from its aggregates.

import { NotFoundError, ValidationError } from "../errors.js";
import type { EventStore, WebsiteRepository } from "../storage/ports.js";
import { statByName } from "./catalog.js";
import type { StatsPage } from "./stats-query.js";

export interface StatsRequest {
  name: string;
  from: string;
  to: string;
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
    if (!(await this.websites.find(userId, websiteId))) throw new NotFoundError();
    return this.events.queryStat({
      websiteId,
      stat,
      from: request.from,
      to: request.to,
      search: request.search?.trim().toLowerCase() || null,
      sortBy: request.sortBy,
      sort: request.sort,
      limit: request.perPage,
      offset: (request.page - 1) * request.perPage,
    });
  }
}
