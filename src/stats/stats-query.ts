// One statistics request, validated and engine-neutral: which statistic of which website
// over which UTC days, filtered, sorted and paged. Event stores compile it for their engine.

import type { StatDefinition } from "./catalog.js";

export interface StatsQuery {
  websiteId: number;
  stat: StatDefinition;
  /** First and last UTC day, inclusive, YYYY-MM-DD. */
  from: string;
  to: string;
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
