// One statistics request, validated and engine-neutral: which statistic of which website
// over which UTC days, counting which events, searched, sorted and paged. Event stores
// compile it for their engine.

import type { StatDefinition } from "./catalog.js";
import type { StatsFilter } from "./stats-filter.js";

export interface StatsQuery {
  websiteId: number;
  stat: StatDefinition;
  /** First and last UTC day, inclusive, YYYY-MM-DD. */
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
