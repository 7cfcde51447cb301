// The top-line numbers of a range (unique visitors, visits, pageviews, views per visit,
// bounce rate, visit duration, custom events) and of a range to compare it with: the period
// of equal length just before, the same days a year before, or any given range; with the
// change from that range to this one. Derived from the catalog's statistics of days (and
// occurrences per event), the ratios as the catalog's RATIOS of the range's sums, so they
// count exactly what those count, filters included.

import { ValidationError } from "../errors.js";
import { RATIOS, ratioValue, type StatName, statByName } from "./catalog.js";
import { addDays, daysBetween, EARLIEST_DAY } from "./day-rule.js";
import type { DayCounts } from "./stats-query.js";
import { ALL_ROWS, checkRange, type StatsService } from "./stats-service.js";

export const COMPARISONS = ["previous", "year", "range", "none"] as const;
export type Comparison = (typeof COMPARISONS)[number];

export interface Totals {
  /** Unique visitors of each day, added up (as over any range). */
  visitors: number;
  visits: number;
  pageviews: number;
  /** The ratios (catalog RATIOS) of the range: null without visits. */
  views_per_visit: number | null;
  bounce_rate: number | null;
  visit_duration: number | null;
  /** Custom events. */
  events: number;
}

/** The statistics added up over the range, each under its total's name. */
const SUMMED = { visitors: "visitors", visits: "visits", pageviews: "pageviews", events: "event" } as const;
type Summed = keyof typeof SUMMED;
/** Every statistic a range's totals add up: those of days, and the others. */
const READ = [
  ...new Set<StatName>([...Object.values(SUMMED), ...RATIOS.flatMap((ratio) => [ratio.of, ratio.per])]),
];
const OF_DAYS = READ.filter((name) => statByName(name)?.dimension === "day");
const NOT_OF_DAYS = READ.filter((name) => !OF_DAYS.includes(name));
type RatioName = (typeof RATIOS)[number]["name"];

export interface RangeTotals {
  from: string;
  to: string;
  totals: Totals;
}

export interface TotalsAnswer extends RangeTotals {
  /** `change`: each number's change in percent (null from 0 or null). */
  comparison: (RangeTotals & { change: Record<keyof Totals, number | null> }) | null;
}

export interface TotalsRequest {
  from: string;
  to: string;
  compare: Comparison;
  compareFrom?: string | undefined;
  compareTo?: string | undefined;
  filters?: string | undefined;
}

export class TotalsService {
  constructor(private readonly stats: StatsService) {}

  async read(userId: number, websiteId: number, request: TotalsRequest): Promise<TotalsAnswer> {
    return (await this.readWithDays(userId, websiteId, request, [])).answer;
  }

  /**
   * The totals, and the counts by day of the range (not the compared one) of the statistics
   * of days `days`, read with those the totals add up (a dashboard's series: visitors and
   * pageviews, which the totals read anyway; filtered at 10M events, a statement of
   * 100-150 ms on one core less).
   */
  async readWithDays(
    userId: number,
    websiteId: number,
    request: TotalsRequest,
    days: readonly StatName[],
  ): Promise<{ answer: TotalsAnswer; days: DayCounts }> {
    checkRange(request.from, request.to);
    const other = comparedRange(request);
    const website = await this.stats.forWebsite(userId, websiteId, request.filters);
    const totalsOf = async (from: string, to: string, ofDays: readonly StatName[]) => {
      // The statistics of days read together (shared reading of the range's events), the
      // others (custom events by name) one by one.
      const [byDay, ...others] = await Promise.all([
        website.readDays(ofDays, from, to),
        ...NOT_OF_DAYS.map((name) =>
          website.read({ name, from, to, sortBy: "count", sort: "desc", perPage: ALL_ROWS, page: 1 }),
        ),
      ]);
      const sums = new Map<StatName, number>([
        ...OF_DAYS.map((name) => [name, sum(Object.values(byDay[name] ?? {}))] as const),
        ...NOT_OF_DAYS.map((name, i) => [name, sum(others[i]?.rows.map((row) => row.count) ?? [])] as const),
      ]);
      const of = (name: StatName) => sums.get(name) ?? 0;
      const totals = {} as Totals;
      for (const [key, name] of Object.entries(SUMMED) as [Summed, StatName][]) totals[key] = of(name);
      for (const ratio of RATIOS)
        totals[ratio.name as RatioName] = ratioValue(ratio, of(ratio.of), of(ratio.per));
      return { range: { from, to, totals }, byDay };
    };
    const [current, compared] = await Promise.all([
      totalsOf(request.from, request.to, [...new Set([...OF_DAYS, ...days])]),
      other ? totalsOf(other.from, other.to, OF_DAYS) : null,
    ]);
    const asked = Object.fromEntries(days.map((name) => [name, current.byDay[name] ?? {}]));
    if (!compared) return { answer: { ...current.range, comparison: null }, days: asked };
    const change = {} as Record<keyof Totals, number | null>;
    for (const key of Object.keys(current.range.totals) as (keyof Totals)[]) {
      change[key] = percentChange(compared.range.totals[key], current.range.totals[key]);
    }
    return { answer: { ...current.range, comparison: { ...compared.range, change } }, days: asked };
  }
}

/** The range compared with, or null for none; a ValidationError for an incomplete custom one. */
export function comparedRange(request: TotalsRequest): { from: string; to: string } | null {
  const { from, to } = request;
  switch (request.compare) {
    case "none":
      return null;
    case "previous":
      return fromEarliestDay(periodBefore(from, to));
    case "year":
      return fromEarliestDay({ from: yearBefore(from), to: yearBefore(to) });
    case "range": {
      const missing: Record<string, string[]> = {};
      if (!request.compareFrom)
        missing.compare_from = ["The compare from field is required when compare is range."];
      if (!request.compareTo)
        missing.compare_to = ["The compare to field is required when compare is range."];
      if (Object.keys(missing).length > 0) throw new ValidationError(missing);
      if ((request.compareFrom as string) > (request.compareTo as string)) {
        throw ValidationError.single(
          "compare_to",
          "The compare to must be a date after or equal to compare from.",
        );
      }
      return fromEarliestDay({ from: request.compareFrom as string, to: request.compareTo as string });
    }
  }
}

/**
 * `range`, when it starts on a day a range may name (day-rule.ts): one before 1970 holds no
 * events, and far enough back it has no YYYY-MM-DD (a range from 1970 to 9000 has a
 * period before it starting in year -5061).
 */
function fromEarliestDay(range: { from: string; to: string }): { from: string; to: string } {
  if (range.from < EARLIEST_DAY) {
    throw ValidationError.single(
      "compare",
      `The compared range would start before ${EARLIEST_DAY}, where no statistics are.`,
    );
  }
  return range;
}

/** The days of the same number just before `from`..`to`. */
export function periodBefore(from: string, to: string): { from: string; to: string } {
  const days = daysBetween(from, to);
  return { from: addDays(from, -days), to: addDays(from, -1) };
}

/** The same day a year before; 29 February gives 28 February. */
function yearBefore(day: string): string {
  const year = Number(day.slice(0, 4)) - 1;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const rest = day.slice(4) === "-02-29" && !leap ? "-02-28" : day.slice(4);
  return `${String(year).padStart(4, "0")}${rest}`;
}

/** The change from `before` to `now` in percent, to one decimal; null when either is null or `before` is 0. */
function percentChange(before: number | null, now: number | null): number | null {
  if (before === null || now === null || before === 0) return null;
  return Math.round(((now - before) / before) * 1000) / 10;
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}
