// What a dashboard shows, all of it in its URL so that a link reproduces the view: the date
// range and the days its totals are compared with, the filters (the `filters` syntax of the
// statistics API) and the one list opened in full (with its search and page). Reads that
// state from a query and writes the links that change one part of it; nothing else builds
// a dashboard URL.

import {
  FILTER_DIMENSIONS,
  type FilterDimension,
  formatFilters,
  parseFilters,
  type StatsFilter,
} from "../stats/stats-filter.js";
import { periodBefore } from "../stats/totals.js";
import { type ChartUnit, chartUnits } from "./chart-points.js";
import { type DateRange, DEFAULT_DAYS, lastDays, parseRange } from "./date-range.js";
import { LISTS, type ListSpec } from "./stat-lists.js";

/** The query a dashboard reads; every part optional. */
export interface DashboardParts {
  from?: string | undefined;
  to?: string | undefined;
  filters?: string | undefined;
  /** A list's statistic: that list, all of its rows, instead of the whole dashboard. */
  details?: string | undefined;
  search?: string | undefined;
  page?: string | undefined;
  /** The chart's unit (chart-points.ts), where the range allows it. */
  unit?: string | undefined;
  /** What the totals are compared with (COMPARISONS); the period before when absent. */
  compare?: string | undefined;
  /** The days compared with when `compare` is `range` (the period before when both are absent). */
  compare_from?: string | undefined;
  compare_to?: string | undefined;
}

/**
 * The query as the URL gives it: a part written more than once (`?from=a&from=b`) comes as
 * the list of its values, which cannot be read (which one was meant?): that part is shown at
 * its default and said why, as any other part that cannot be read.
 */
export type DashboardQuery = { [K in keyof DashboardParts]?: string | readonly string[] | undefined };

const PART_NAMES = [
  "from",
  "to",
  "filters",
  "details",
  "search",
  "page",
  "unit",
  "compare",
  "compare_from",
  "compare_to",
] as const satisfies readonly (keyof DashboardParts)[];

/** Why a part given `times` times is not read. */
export function repeatedPart(name: string, times: number): string {
  return `The ${name.replace(/_/g, " ")} must be given once, not ${times} times.`;
}

/**
 * Cuts, in place, each part of a form body or query that was given more than once (a list,
 * which only a crafted request sends) to its first value, and returns those parts with how
 * many times each was given. A list of one or none comes from JSON, no form: left alone.
 */
export function firstValuesOf(parts: unknown): Map<string, number> {
  const times = new Map<string, number>();
  if (typeof parts !== "object" || parts === null) return times;
  const record = parts as Record<string, unknown>;
  for (const [name, value] of Object.entries(record)) {
    if (!Array.isArray(value) || value.length < 2) continue;
    record[name] = value[0];
    times.set(name, value.length);
  }
  return times;
}

/** The query's parts given once; each repeated one is left out (its default) and said why in `errors`. */
function singleParts(query: DashboardQuery, errors: string[]): DashboardParts & { repeated: Set<string> } {
  const parts: DashboardParts = {};
  const repeated = new Set<string>();
  for (const name of PART_NAMES) {
    const value = query[name];
    if (typeof value === "string") parts[name] = value;
    else if (value !== undefined) {
      errors.push(repeatedPart(name, value.length));
      repeated.add(name);
    }
  }
  return { ...parts, repeated };
}

/**
 * What a dashboard's totals can be compared with, as the totals API names it: the period of
 * the same length just before, the same days a year before, or any days.
 */
export const COMPARISONS = ["previous", "year", "range"] as const;
export type DashboardComparison = (typeof COMPARISONS)[number];

export interface DetailsState {
  list: ListSpec;
  /** Looked for in the values (as the API's `search`), or "". */
  search: string;
  page: number;
}

export interface DashboardState {
  range: DateRange;
  filters: StatsFilter[];
  details: DetailsState | null;
  /** The chart's unit, or null for the range's own (chartUnit). */
  unit: ChartUnit | null;
  compare: DashboardComparison;
  /** The days compared with when `compare` is "range" (else null). */
  compareRange: DateRange | null;
}

/** Longest search kept (no stored value is longer than a page URL). */
const MAX_SEARCH = 2048;
/** Pages past this one are refused: 100 rows a page reach 1,000,000 values. */
const MAX_PAGE = 10_000;

/**
 * The state a query asks for, and what is wrong with it: each part that cannot be read is
 * left at its default (the last 30 days, no filter, the whole dashboard) and said why.
 */
export function readDashboardState(
  asked: DashboardQuery,
  now: Date,
): { state: DashboardState; errors: string[] } {
  const errors: string[] = [];
  const query = singleParts(asked, errors);
  // A repeated end leaves the whole range at its default, as an end that is not a date does.
  const rangeRepeated = query.repeated.has("from") || query.repeated.has("to");
  const parsed = rangeRepeated ? null : parseRange(query.from, query.to, now);
  const range = parsed?.ok ? parsed.range : lastDays(DEFAULT_DAYS, now);
  if (parsed && !parsed.ok) errors.push(...parsed.errors);
  let filters: StatsFilter[] = [];
  if (query.filters !== undefined && query.filters !== "") {
    const read = parseFilters(query.filters);
    if ("problem" in read) errors.push(read.problem);
    else filters = read.filters;
  }
  let details: DetailsState | null = null;
  if (query.details !== undefined && query.details !== "") {
    const list = LISTS.find((candidate) => candidate.stat === query.details);
    if (!list) errors.push(`There is no list named ${JSON.stringify(query.details.slice(0, 60))}.`);
    else {
      const page = query.page === undefined || query.page === "" ? 1 : Number(query.page);
      const pageOk = Number.isInteger(page) && page >= 1 && page <= MAX_PAGE;
      if (!pageOk) errors.push(`The page must be a whole number from 1 to ${MAX_PAGE}.`);
      const search = (query.search ?? "").trim().slice(0, MAX_SEARCH);
      details = { list, search, page: pageOk ? page : 1 };
    }
  }
  let unit: ChartUnit | null = null;
  if (query.unit !== undefined && query.unit !== "") {
    const units = chartUnits(range.days);
    if (units.includes(query.unit as ChartUnit)) unit = query.unit as ChartUnit;
    else
      errors.push(
        `The chart of ${range.days === 1 ? "one day" : `${range.days} days`} can show one point per ${units.join(", ")}.`,
      );
  }
  let compare: DashboardComparison = "previous";
  if (query.compare !== undefined && query.compare !== "") {
    if ((COMPARISONS as readonly string[]).includes(query.compare))
      compare = query.compare as DashboardComparison;
    else errors.push(`The comparison must be one of: ${COMPARISONS.join(", ")}.`);
  }
  let compareRange: DateRange | null = null;
  if (compare === "range") {
    const before = periodBefore(range.from, range.to);
    compareRange = { ...before, days: range.days };
    const repeated = query.repeated.has("compare_from") || query.repeated.has("compare_to");
    if (!repeated && (!empty(query.compare_from) || !empty(query.compare_to))) {
      const labels = { from: "compare from", to: "compare to" };
      const read = parseRange(query.compare_from, query.compare_to, now, labels);
      if (read.ok) compareRange = read.range;
      else errors.push(...read.errors);
    }
  }
  return { state: { range, filters, details, unit, compare, compareRange }, errors };
}

/** The link to `action` showing `state`. */
export function dashboardHref(action: string, state: DashboardState): string {
  const query = new URLSearchParams({ from: state.range.from, to: state.range.to });
  if (state.unit !== null) query.set("unit", state.unit);
  if (state.compare !== "previous") query.set("compare", state.compare);
  if (state.compareRange) {
    query.set("compare_from", state.compareRange.from);
    query.set("compare_to", state.compareRange.to);
  }
  if (state.filters.length > 0) query.set("filters", formatFilters(state.filters));
  if (state.details) {
    query.set("details", state.details.list.stat);
    if (state.details.search !== "") query.set("search", state.details.search);
    if (state.details.page > 1) query.set("page", String(state.details.page));
  }
  return `${action}?${query}`;
}

/** The filter dimension a list's values can filter by (its statistic's own), or null. */
export function filterDimensionOf(list: ListSpec): FilterDimension | null {
  return FILTER_DIMENSIONS.find((dimension) => dimension.name === list.stat) ?? null;
}

/**
 * The filter a click on a list's value adds: "is" that value, on the list's dimension (a
 * custom event's row `name:value:unit` filters by its name). Null for a list that filters
 * nothing (exit pages).
 */
export function filterFor(list: ListSpec, value: string): StatsFilter | null {
  const dimension = filterDimensionOf(list);
  if (!dimension) return null;
  const compared = dimension.of === "events" ? (value.split(":")[0] ?? "") : value;
  return { dimension, operator: "is", value: compared };
}

/** The same view with `filter` too, in place of any other filter on its dimension; back to the whole dashboard. */
export function withFilter(state: DashboardState, filter: StatsFilter): DashboardState {
  const others = state.filters.filter((kept) => kept.dimension.name !== filter.dimension.name);
  return { ...state, filters: [...others, filter], details: null };
}

/** The same view without its `index`-th filter (or without any, for null). */
export function withoutFilter(state: DashboardState, index: number | null): DashboardState {
  const filters = index === null ? [] : state.filters.filter((_, at) => at !== index);
  const details = state.details ? { ...state.details, page: 1 } : null;
  return { ...state, filters, details };
}

/** The same filters over another range, on the whole dashboard, charted in the range's own unit. */
export function withRange(state: DashboardState, range: DateRange): DashboardState {
  return { ...state, range, details: null, unit: null };
}

/** The chart in another unit. */
export function withUnit(state: DashboardState, unit: ChartUnit): DashboardState {
  return { ...state, unit };
}

/** A list opened in full (page 1, no search), or back to the dashboard with null. */
export function withDetails(state: DashboardState, list: ListSpec | null): DashboardState {
  return { ...state, details: list ? { list, search: "", page: 1 } : null };
}

/** Another page of the list opened in full. */
export function withPage(state: DashboardState, page: number): DashboardState {
  return state.details ? { ...state, details: { ...state.details, page } } : state;
}

const empty = (value: string | undefined) => value === undefined || value === "";
