// Folds a batch of events into aggregate deltas in memory, one pass: row counts
// (pageviews, visits, events) are simply added; unique-visitor counts come from each day's
// VisitorDay, which knows who was already counted. The result is what the batch adds to
// daily_stats, plus the visitor number each event is stored with.

import { STATS } from "../../stats/catalog.js";
import type { StoredEvent } from "../ports.js";
import { HOURS, VISITOR_COLUMNS, type VisitorDay } from "./visitor-day.js";

const DAY_SECONDS = 86_400;

const ROW_STATS = STATS.filter((stat) => stat.measure === "rows");
const STAT_SLOTS = Math.max(...STATS.map((stat) => stat.id)) + 1;

export interface Delta {
  websiteId: number;
  statId: number;
  day: string;
  value: string;
  count: number;
}

export interface FoldedBatch {
  /** Per event, its visitor number on its day. */
  visitorNumbers: Uint32Array<ArrayBuffer>;
  /** New hash -> number assignments, to persist for recent days. */
  newIds: { websiteId: number; day: string; hash: bigint; number: number }[];
  deltas: Delta[];
}

export function dayNumberOf(event: StoredEvent): number {
  return Math.floor(event.ts.getTime() / 1000 / DAY_SECONDS);
}

export function dayString(dayNumber: number): string {
  return new Date(dayNumber * DAY_SECONDS * 1000).toISOString().slice(0, 10);
}

export function dayNumberFromString(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000 / DAY_SECONDS);
}

/** The Monday of a day's week (day 0, 1970-01-01, was a Thursday). */
export function mondayOf(dayNumber: number): number {
  return dayNumber - ((((dayNumber + 3) % 7) + 7) % 7);
}

/**
 * Folds a batch one event at a time, so the caller can yield to the event loop between
 * slices of it (a fold costs a few microseconds per event, all of it synchronous).
 * `days(websiteId, dayNumber)` must return the loaded VisitorDay of every day in the batch.
 */
export class BatchFolder {
  // Per (website, day) group, per statistic, value -> count: no string keys to build per hit.
  private readonly groups = new Map<VisitorDay, { websiteId: number; byStat: Map<string, number>[] }>();
  private readonly visitorNumbers: Uint32Array<ArrayBuffer>;
  private readonly newIds: FoldedBatch["newIds"] = [];
  private readonly values: string[] = new Array(VISITOR_COLUMNS.length);

  constructor(
    size: number,
    private readonly days: (websiteId: number, dayNumber: number) => VisitorDay,
  ) {
    this.visitorNumbers = new Uint32Array(size);
  }

  /** Folds the event at position `index` of the batch. */
  add(event: StoredEvent, index: number): void {
    const dayNumber = dayNumberOf(event);
    const visitorDay = this.days(event.websiteId, dayNumber);
    const { day } = visitorDay;
    let group = this.groups.get(visitorDay);
    if (!group) {
      group = { websiteId: event.websiteId, byStat: Array.from({ length: STAT_SLOTS }, () => new Map()) };
      this.groups.set(visitorDay, group);
    }
    const byStat = group.byStat;
    const add = (statId: number, value: string) => {
      const counts = byStat[statId] as Map<string, number>;
      counts.set(value, (counts.get(value) ?? 0) + 1);
    };
    const hour = Math.floor((event.ts.getTime() / 1000 - dayNumber * DAY_SECONDS) / 3600);
    const { number, created } = visitorDay.numberOf(event.visitor);
    this.visitorNumbers[index] = number;
    if (created) this.newIds.push({ websiteId: event.websiteId, day, hash: event.visitor, number });

    for (const stat of ROW_STATS) {
      const counted =
        stat.rows === "events"
          ? event.kind === "event"
          : event.kind === "pageview" && (stat.rows === "pageviews" || event.isVisit);
      if (!counted) continue;
      const value =
        stat.dimension === "day"
          ? day
          : stat.dimension === "hour"
            ? (HOURS[hour] as string)
            : event[stat.dimension];
      add(stat.id, value);
    }
    if (event.kind === "pageview") {
      VISITOR_COLUMNS.forEach((column, i) => {
        this.values[i] = event[column.column];
      });
      visitorDay.pageview(number, hour, this.values, add);
    }
  }

  result(): FoldedBatch {
    const deltas: Delta[] = [];
    for (const [visitorDay, { websiteId, byStat }] of this.groups) {
      byStat.forEach((counts, statId) => {
        for (const [value, count] of counts)
          deltas.push({ websiteId, statId, day: visitorDay.day, value, count });
      });
    }
    return { visitorNumbers: this.visitorNumbers, newIds: this.newIds, deltas };
  }
}
