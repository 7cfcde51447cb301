// Every statistic's answers from a store, sorted, searched and paged several ways, to
// compare two stores (or one before and after a change) answer for answer; and a pool of
// visitor hashes over the whole 64-bit range, so visitors repeat within a day.

import { STATS } from "../../src/stats/catalog.js";
import type { StatsQuery } from "../../src/stats/stats-query.js";
import type { EventStore } from "../../src/storage/ports.js";

export const VARIANTS: Pick<StatsQuery, "search" | "sortBy" | "sort" | "limit" | "offset">[] = [
  { search: null, sortBy: "count", sort: "desc", limit: 100, offset: 0 },
  { search: null, sortBy: "value", sort: "asc", limit: 100, offset: 0 },
  { search: null, sortBy: "count", sort: "asc", limit: 3, offset: 2 },
  { search: "e", sortBy: "count", sort: "desc", limit: 100, offset: 0 },
  { search: "%_", sortBy: "value", sort: "desc", limit: 100, offset: 0 },
  { search: null, sortBy: "count", sort: "desc", limit: 10, offset: 50 },
];

/**
 * Ways to page a statistic read in a batch beside others, each statistic one of them:
 * VARIANTS but every row by count (a batch's plain page), and by value descending without a
 * search too (the search for "%_" leaves that order nothing to sort).
 */
export const BATCH_VARIANTS: Pick<StatsQuery, "search" | "sortBy" | "sort" | "limit" | "offset">[] = [
  ...VARIANTS.slice(1),
  { search: null, sortBy: "value", sort: "desc", limit: 5, offset: 1 },
];

/** Everything of a query but its website, statistic and days: unfiltered, in UTC, every row by count. */
export const EVERY_ROW: Pick<
  StatsQuery,
  "filters" | "zone" | "search" | "sortBy" | "sort" | "limit" | "offset"
> = {
  filters: [],
  zone: "UTC",
  search: null,
  sortBy: "count",
  sort: "desc",
  limit: 100,
  offset: 0,
};

export async function answers(
  store: EventStore,
  websiteId: number,
  from = "2026-01-01",
  to = "2026-12-31",
  zone = "UTC",
) {
  const result: Record<string, unknown> = {};
  for (const stat of STATS) {
    for (const [i, variant] of VARIANTS.entries()) {
      result[`${stat.name}/${i}`] = await store.queryStat({
        websiteId,
        stat,
        from,
        to,
        filters: [],
        zone,
        ...variant,
      });
    }
  }
  return result;
}

export function visitorPool(next: () => number, size = 30): bigint[] {
  return Array.from(
    { length: size },
    () => (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)),
  );
}
