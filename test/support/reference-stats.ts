// The statistics computed from raw events in plain TypeScript, straight from the catalog's
// words (CONTRACT.md section 4): the answers the contract suite expects of every engine, so
// a run with one engine still checks it against something it does not share.

import { BOUNCE_SECONDS, type StatDefinition, VISIT_GAP_SECONDS } from "../../src/stats/catalog.js";
import type { StatsFilter } from "../../src/stats/stats-filter.js";
import type { StatsPage, StatsQuery } from "../../src/stats/stats-query.js";
import type { StoredEvent } from "../../src/storage/ports.js";

/** The page of `query` over `events`, as every event store must answer it. */
export function referenceStat(events: readonly StoredEvent[], query: StatsQuery): StatsPage {
  const { stat } = query;
  const rows = new Map<string, number>();
  const visitors = new Map<string, Set<string>>();
  const wallClock = localClock(query.zone);
  if (stat.rows === "visits") {
    for (const visit of referenceVisits(events, query)) {
      const value =
        stat.dimension === "day" ? visit.day : stat.dimension === "hour" ? visit.hour : visit.exitPage;
      if (query.search !== null && !value.toLowerCase().includes(query.search)) continue;
      const seconds = visit.end - visit.start;
      const bounce = visit.pageviews === 1 && seconds < BOUNCE_SECONDS ? 1 : 0;
      const measured = { rows: 1, bounces: bounce, seconds, pageviews: visit.pageviews, visitors: 0 };
      rows.set(value, (rows.get(value) ?? 0) + measured[stat.measure]);
    }
  }
  for (const event of stat.rows === "visits" ? [] : events) {
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
    stat.measure !== "visitors"
      ? [...rows].filter(([, count]) => count > 0)
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

export interface ReferenceVisit {
  day: string;
  /** The local hour of its start. */
  hour: string;
  /** Seconds since 1970: its first pageview, and its last event. */
  start: number;
  end: number;
  pageviews: number;
  exitPage: string;
}

/**
 * The visits of the query's website over its local days, in the catalog's words: a visitor's
 * events of one local day, a visit starting at each pageview more than VISIT_GAP_SECONDS
 * after the one before (or the day's first), each event in the last visit started at or
 * before it (none before the first); ending at its last event; its exit page the page of its
 * last pageview (of pageviews of one second, the greatest page by bytes). With filters, only
 * the visits with a pageview or custom event every filter holds for.
 */
export function referenceVisits(events: readonly StoredEvent[], query: StatsQuery): ReferenceVisit[] {
  const wallClock = localClock(query.zone);
  const groups = new Map<string, { day: string; events: StoredEvent[] }>();
  for (const event of events) {
    const { day } = wallClock(event.ts);
    if (event.websiteId !== query.websiteId || day < query.from || day > query.to) continue;
    const key = `${event.visitor} ${day}`;
    const group = groups.get(key) ?? { day, events: [] };
    group.events.push(event);
    groups.set(key, group);
  }
  const seconds = (event: StoredEvent) => Math.floor(event.ts.getTime() / 1000);
  const visits: ReferenceVisit[] = [];
  for (const { day, events: own } of groups.values()) {
    const starts: number[] = [];
    let previous: number | null = null;
    for (const time of own
      .filter((e) => e.kind === "pageview")
      .map(seconds)
      .sort((a, b) => a - b)) {
      if (previous === null || time - previous > VISIT_GAP_SECONDS) starts.push(time);
      previous = time;
    }
    const members = starts.map(() => [] as StoredEvent[]);
    for (const event of own) {
      const index = starts.findLastIndex((start) => start <= seconds(event));
      if (index >= 0) members[index]?.push(event);
    }
    members.forEach((visit, index) => {
      const start = starts[index] as number;
      const pageviews = visit.filter((e) => e.kind === "pageview");
      const last = pageviews.reduce((a, b) =>
        seconds(b) > seconds(a) ||
        (seconds(b) === seconds(a) && Buffer.compare(Buffer.from(b.page), Buffer.from(a.page)) > 0)
          ? b
          : a,
      );
      const matched = visit.some(
        (e) => e.kind !== "engagement" && query.filters.every((filter) => holds(filter, e)),
      );
      if (!matched) return;
      visits.push({
        day,
        hour: wallClock(new Date(start * 1000)).hour,
        start,
        end: Math.max(...visit.map(seconds)),
        pageviews: pageviews.length,
        exitPage: last.page,
      });
    });
  }
  return visits;
}

function counts(stat: StatDefinition, event: StoredEvent): boolean {
  if (stat.rows === "events") return event.kind === "event";
  if (event.kind !== "pageview") return false;
  return stat.rows === "pageviews" || (stat.rows === "entrances" && event.isVisit);
}

const clocks = new Map<string, (instant: Date) => { day: string; hour: string }>();

/**
 * The local date (YYYY-MM-DD) and hour (00-23) of an instant, as a wall clock in `zone`
 * shows them: read from Intl directly, not from the product's time-zone module. Read once
 * per zone and quarter of an hour (every zone's offset is a whole number of quarters, so
 * the local date and hour are the same throughout one): Intl for each event of each query
 * took most of a minute of a zone test.
 */
export function localClock(zone: string): (instant: Date) => { day: string; hour: string } {
  const known = clocks.get(zone);
  if (known) return known;
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    hourCycle: "h23",
  });
  const read = new Map<number, { day: string; hour: string }>();
  const clock = (instant: Date) => {
    const quarter = Math.floor(instant.getTime() / 900_000);
    let time = read.get(quarter);
    if (!time) {
      const part = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
      time = { day: `${part.year}-${part.month}-${part.day}`, hour: String(part.hour) };
      read.set(quarter, time);
    }
    return time;
  };
  clocks.set(zone, clock);
  return clock;
}

function statValue(stat: StatDefinition, event: StoredEvent, day: string, hour: string): string {
  if (stat.dimension === "day") return day;
  if (stat.dimension === "hour") return hour;
  if (stat.dimension === "exit_page") throw new Error("a visit's, not an event's");
  return event[stat.dimension];
}

/**
 * The filter's words (stats-filter.ts): an event's value on the dimension (only visits have
 * a landing page, only custom events a name), equal to or containing the value, negated.
 */
function holds(filter: StatsFilter, event: StoredEvent): boolean {
  const { dimension, operator, value } = filter;
  let own: string | null = event[dimension.column];
  if (dimension.of === "entrances" && !(event.kind === "pageview" && event.isVisit)) own = null;
  if (dimension.of === "events") own = event.kind === "event" ? (event.event.split(":")[0] ?? "") : null;
  const positive =
    own !== null &&
    (operator === "is" || operator === "is_not" ? own === value : own.toLowerCase().includes(value));
  return operator === "is_not" || operator === "does_not_contain" ? !positive : positive;
}
