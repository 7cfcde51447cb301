// Filters on a statistic: which events it counts, by the value an event has on a dimension
// of the catalog. The one definition of what each dimension and operator means (every
// engine compiles it, the README and the API document quote it), and the parser of the
// `filters` query parameter:
//
//   filters=page==/pricing;country!=US:United States;referrer~google
//
// Conditions are separated by `;` and all must hold; each is a dimension, an operator
// (`==` is, `!=` is not, `~` contains, `!~` does not contain) and a value, with `\;` and
// `\\` standing for `;` and `\` inside a value.

import { clipped } from "../field-rule.js";
import type { Dimension } from "./catalog.js";

/** Where an event's value of a filter dimension comes from. */
export interface FilterDimensionDefinition {
  readonly name: string;
  /** The stored column (the one the statistic of the same name groups by). */
  readonly column: Exclude<Dimension, "day" | "hour" | "exit_page">;
  /**
   * Which events have a value on it: every event, only entrances (pageviews whose referrer
   * is not the website: the landing page is the page of those), or only custom events (whose
   * value is the event's name, the part of `name:value:unit` before the first colon).
   */
  readonly of: "all" | "entrances" | "events";
  readonly description: string;
}

export const FILTER_DIMENSIONS = [
  { name: "page", column: "page", of: "all", description: "the page (path and query)" },
  { name: "landing_page", column: "page", of: "entrances", description: "the page of an entrance" },
  { name: "referrer", column: "referrer", of: "all", description: 'the referrer host ("" for direct)' },
  { name: "campaign", column: "campaign", of: "all", description: "the utm_campaign" },
  { name: "browser", column: "browser", of: "all", description: "the browser family" },
  { name: "os", column: "os", of: "all", description: "the operating system" },
  { name: "device", column: "device", of: "all", description: "the device type" },
  { name: "resolution", column: "resolution", of: "all", description: "the screen resolution" },
  { name: "language", column: "language", of: "all", description: "the language" },
  { name: "country", column: "country", of: "all", description: "the country (ISO2:Name)" },
  { name: "city", column: "city", of: "all", description: "the city (ISO2:City)" },
  { name: "continent", column: "continent", of: "all", description: "the continent (CODE:Name)" },
  { name: "event", column: "event", of: "events", description: "a custom event's name" },
] as const satisfies readonly FilterDimensionDefinition[];

export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];

/**
 * `is` and `contains` hold for an event that has a value on the dimension equal to, or
 * containing (case-insensitively, literally), the filter's value; `is_not` and
 * `does_not_contain` hold exactly where those do not, so `x==v` and `x!=v` split the events.
 */
export type FilterOperator = "is" | "is_not" | "contains" | "does_not_contain";

export interface StatsFilter {
  readonly dimension: FilterDimension;
  readonly operator: FilterOperator;
  /** The value compared; for the contains operators, lowercase. */
  readonly value: string;
}

/** The operators as written. */
const OPERATORS: readonly [string, FilterOperator][] = [
  ["==", "is"],
  ["!=", "is_not"],
  ["!~", "does_not_contain"],
  ["~", "contains"],
];

export const MAX_FILTERS = 10;
/** No stored value is longer (page URLs are cut at 2,048 characters). */
const MAX_VALUE_LENGTH = 2048;

/** Whether the operator compares the whole value (is, is not) rather than looks inside it. */
export function comparesWhole(operator: FilterOperator): boolean {
  return operator === "is" || operator === "is_not";
}

/** Whether the operator holds where its positive form (is, contains) does not. */
export function isNegated(operator: FilterOperator): boolean {
  return operator === "is_not" || operator === "does_not_contain";
}

/** The syntax in one sentence, for the API document and error messages. */
export const FILTER_SYNTAX =
  "conditions separated by ; each a dimension, an operator (== is, != is not, ~ contains, !~ does not contain) and a value, with \\; and \\\\ for ; and \\ in a value";

/** How each operator reads in a sentence ("country is not US:United States"). */
export const OPERATOR_WORDS: Readonly<Record<FilterOperator, string>> = {
  is: "is",
  is_not: "is not",
  contains: "contains",
  does_not_contain: "does not contain",
};

/** Writes filters as the `filters` parameter: what parseFilters reads back as the same filters. */
export function formatFilters(filters: readonly StatsFilter[]): string {
  return filters
    .map((filter) => {
      const written = OPERATORS.find(([, operator]) => operator === filter.operator)?.[0] ?? "==";
      return `${filter.dimension.name}${written}${filter.value.replaceAll("\\", "\\\\").replaceAll(";", "\\;")}`;
    })
    .join(";");
}

/** Reads the `filters` parameter: the filters, or the sentence saying what is wrong. */
export function parseFilters(raw: string): { filters: StatsFilter[] } | { problem: string } {
  const conditions = splitConditions(raw);
  if (typeof conditions === "string") return { problem: conditions };
  if (conditions.length === 0) return { problem: "The filters must hold at least one condition." };
  if (conditions.length > MAX_FILTERS) {
    return { problem: `The filters must be at most ${MAX_FILTERS} conditions.` };
  }
  const filters: StatsFilter[] = [];
  for (const condition of conditions) {
    const [, name = "", written = "", value = ""] = /^([a-z_]*)(==|!=|!~|~)?([\s\S]*)$/.exec(condition) ?? [];
    const dimension = FILTER_DIMENSIONS.find((candidate) => candidate.name === name);
    if (!dimension) {
      const names = FILTER_DIMENSIONS.map((candidate) => candidate.name).join(", ");
      return { problem: `The filter ${quote(condition)} must begin with one of ${names}.` };
    }
    const operator = OPERATORS.find(([spelled]) => spelled === written)?.[1];
    if (!operator)
      return { problem: `The filter ${quote(condition)} must have ==, !=, ~ or !~ after ${name}.` };
    if (value.length > MAX_VALUE_LENGTH) {
      return {
        problem: `The value of the filter on ${name} must be at most ${MAX_VALUE_LENGTH} characters.`,
      };
    }
    const contains = !comparesWhole(operator);
    if (contains && value === "") {
      return { problem: `The filter ${quote(condition)} must say what the ${name} contains.` };
    }
    filters.push({ dimension, operator, value: contains ? value.toLowerCase() : value });
  }
  return { filters };
}

const quote = (text: string) => JSON.stringify(clipped(text));

/**
 * The conditions, split at each `;` not escaped, with `\;` and `\\` read as `;` and `\`
 * (no dimension or operator holds either, so reading them first leaves those intact); empty
 * ones (a trailing `;`) skipped. A message for any other escape.
 */
function splitConditions(raw: string): string[] | string {
  const conditions: string[] = [];
  let current = "";
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === "\\") {
      const next = raw[i + 1];
      if (next !== ";" && next !== "\\") {
        return `The filter ${quote(current + raw.slice(i))} has a \\ not followed by ; or \\ (write \\\\ for one).`;
      }
      current += next;
      i++;
    } else if (char === ";") {
      if (current !== "") conditions.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") conditions.push(current);
  return conditions;
}
