// The statistics computed from raw events in plain TypeScript, straight from the catalog's
// words (CONTRACT.md section 4): the answers the contract suite expects of every engine, so
// a run with one engine still checks it against something it does not share.

import type { StatDefinition } from "../../src/stats/catalog.js";
import type { StatsFilter } from "../../src/stats/stats-filter.js";
import type { StatsPage, StatsQuery } from "../../src/stats/stats-query.js";
import type { StoredEvent } from "../../src/storage/ports.js";

/** The page of `query` over `events`, as every event store must answer it. */
export function referenceStat(events: readonly StoredEvent[], query: StatsQuery): StatsPage {
  const { stat } = query;
  const rows = new Map<string, number>();
  const visitors = new Map<string, Set<string>>();
  const wallClock = localClock(query.zone);
  for (const event of events) {
    const { day, hour } = wallClock(event.ts);
    if (event.websiteId !== query.websiteId || day < query.from || day > query.to) continue;
    if (!counts(stat, event)) continue;
    if (!query.filters.every((filter) => holds(filter, event))) continue;
    const value = statValue(stat, event, day, hour);
    if (stat.omitsEmptyValue && value === "") continue;
    if (query.search !== null && !value.toLowerCase().includes(query.search)) continue;
    if (stat.measure === "rows") rows.set(value, (rows.get(value) ?? 0) + 1);
    else {
      // Unique visitors: distinct (day, visitor) pairs.
      const seen = visitors.get(value) ?? new Set<string>();
      seen.add(`${day} ${event.visitor}`);
      visitors.set(value, seen);
    }
  }
  const all =
    stat.measure === "rows"
      ? [...rows]
      : [...visitors].map(([value, seen]) => [value, seen.size] as [string, number]);
  const byValue = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  all.sort(([va, ca], [vb, cb]) => {
    if (query.sortBy === "value") return query.sort === "asc" ? byValue(va, vb) : byValue(vb, va);
    return (query.sort === "asc" ? ca - cb : cb - ca) || byValue(va, vb);
  });
  return {
    rows: all.slice(query.offset, query.offset + query.limit).map(([value, count]) => ({ value, count })),
    total: all.length,
  };
}

function counts(stat: StatDefinition, event: StoredEvent): boolean {
  if (stat.rows === "events") return event.kind === "event";
  if (event.kind !== "pageview") return false;
  return stat.rows === "pageviews" || event.isVisit;
}

/**
 * The local date (YYYY-MM-DD) and hour (00-23) of an instant, as a wall clock in `zone`
 * shows them: read from Intl directly, not from the product's time-zone module.
 */
export function localClock(zone: string): (instant: Date) => { day: string; hour: string } {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    hourCycle: "h23",
  });
  return (instant) => {
    const part = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
    return { day: `${part.year}-${part.month}-${part.day}`, hour: String(part.hour) };
  };
}

function statValue(stat: StatDefinition, event: StoredEvent, day: string, hour: string): string {
  if (stat.dimension === "day") return day;
  if (stat.dimension === "hour") return hour;
  return event[stat.dimension];
}

/**
 * The filter's words (stats-filter.ts): an event's value on the dimension (only visits have
 * a landing page, only custom events a name), equal to or containing the value, negated.
 */
function holds(filter: StatsFilter, event: StoredEvent): boolean {
  const { dimension, operator, value } = filter;
  let own: string | null = event[dimension.column];
  if (dimension.of === "visits" && !(event.kind === "pageview" && event.isVisit)) own = null;
  if (dimension.of === "events") own = event.kind === "event" ? (event.event.split(":")[0] ?? "") : null;
  const positive =
    own !== null &&
    (operator === "is" || operator === "is_not" ? own === value : own.toLowerCase().includes(value));
  return operator === "is_not" || operator === "does_not_contain" ? !positive : positive;
}
