// The one catalog of statistics. Each name says what it counts (pageviews, entrances, custom
// events, or visits), what it groups them by (the day, the hour of day, or a column) and how
// it counts (rows, unique visitors: distinct visitors per day, or a sum over visits). The
// HTTP enum, the aggregate maintenance, the rebuild and the queries are all derived from
// this table. Ratios (bounce rate, visit duration, views per visit) are two of these divided.

/**
 * What a statistic counts. Of the stored events: `pageviews`, `entrances` (pageviews whose
 * referrer is not the website itself: a stateless count, what landing page, referrer and
 * campaign count) and `events` (custom events). Or `visits`: a visitor's activity of one
 * local day, split where more than VISIT_GAP_SECONDS pass without a pageview (see VISITS).
 */
export type RowFilter = "pageviews" | "entrances" | "events" | "visits";
/**
 * How: `rows` (events, or visits), `visitors` (distinct visitors per day), or, of visits, a
 * sum of each visit's `bounces` (1 for a bounce), `seconds` (its duration) or `pageviews`.
 */
export type Measure = "rows" | "visitors" | "bounces" | "seconds" | "pageviews";

/** A visit ends when this many seconds pass without a pageview (the next one starts another). */
export const VISIT_GAP_SECONDS = 1800;
/** A visit of one pageview that lasts less than this many seconds is a bounce. */
export const BOUNCE_SECONDS = 10;

/**
 * The stored column a statistic groups by, the event's day or hour in the website's time zone,
 * or (of visits) the page of its last pageview. A visit's day and hour are those of its start.
 */
export type Dimension =
  | "day"
  | "hour"
  | "page"
  | "referrer"
  | "campaign"
  | "browser"
  | "os"
  | "device"
  | "resolution"
  | "language"
  | "country"
  | "city"
  | "continent"
  | "event"
  | "exit_page";

export interface StatDefinition {
  readonly name: string;
  /** Stable small integer stored in the aggregates; never reuse or renumber. */
  readonly id: number;
  readonly rows: RowFilter;
  readonly dimension: Dimension;
  readonly measure: Measure;
  readonly description: string;
  /**
   * Rows whose value is empty are not listed: a visit without a campaign has no campaign
   * (whereas an empty referrer is a direct visit, a value of its own).
   */
  readonly omitsEmptyValue?: true;
}

export const STATS = [
  {
    name: "pageviews",
    id: 1,
    rows: "pageviews",
    dimension: "day",
    measure: "rows",
    description: "Pageviews per day (YYYY-MM-DD).",
  },
  {
    name: "visitors",
    id: 2,
    rows: "pageviews",
    dimension: "day",
    measure: "visitors",
    description: "Unique visitors per day.",
  },
  {
    name: "pageviews_hours",
    id: 3,
    rows: "pageviews",
    dimension: "hour",
    measure: "rows",
    description: "Pageviews per hour of day (00-23 in the website's time zone), summed over the range.",
  },
  {
    name: "visitors_hours",
    id: 4,
    rows: "pageviews",
    dimension: "hour",
    measure: "visitors",
    description: "Unique visitors per hour of day, summed over the days of the range.",
  },
  {
    name: "page",
    id: 5,
    rows: "pageviews",
    dimension: "page",
    measure: "rows",
    description: "Pageviews per page (path and query).",
  },
  {
    name: "landing_page",
    id: 6,
    rows: "entrances",
    dimension: "page",
    measure: "rows",
    description: "Entrances (visits as the original counts them: pageviews from elsewhere) per page.",
  },
  {
    name: "referrer",
    id: 7,
    rows: "entrances",
    dimension: "referrer",
    measure: "rows",
    description: 'Entrances per referrer host ("" for direct).',
  },
  {
    name: "campaign",
    id: 8,
    rows: "entrances",
    dimension: "campaign",
    measure: "rows",
    description: "Entrances per utm_campaign (those without one are not listed).",
    omitsEmptyValue: true,
  },
  {
    name: "browser",
    id: 9,
    rows: "pageviews",
    dimension: "browser",
    measure: "visitors",
    description: "Unique visitors per browser family.",
  },
  {
    name: "os",
    id: 10,
    rows: "pageviews",
    dimension: "os",
    measure: "visitors",
    description: "Unique visitors per operating system.",
  },
  {
    name: "device",
    id: 11,
    rows: "pageviews",
    dimension: "device",
    measure: "visitors",
    description: "Unique visitors per device type.",
  },
  {
    name: "resolution",
    id: 12,
    rows: "pageviews",
    dimension: "resolution",
    measure: "visitors",
    description: "Unique visitors per screen resolution (WxH).",
  },
  {
    name: "language",
    id: 13,
    rows: "pageviews",
    dimension: "language",
    measure: "visitors",
    description: "Unique visitors per language.",
  },
  {
    name: "country",
    id: 14,
    rows: "pageviews",
    dimension: "country",
    measure: "visitors",
    description: "Unique visitors per country (ISO2:Name).",
  },
  {
    name: "city",
    id: 15,
    rows: "pageviews",
    dimension: "city",
    measure: "visitors",
    description: "Unique visitors per city (ISO2:City).",
  },
  {
    name: "continent",
    id: 16,
    rows: "pageviews",
    dimension: "continent",
    measure: "visitors",
    description: "Unique visitors per continent (CODE:Name).",
  },
  {
    name: "event",
    id: 17,
    rows: "events",
    dimension: "event",
    measure: "rows",
    description: "Occurrences per custom event (name:value:unit).",
  },
  {
    name: "visits",
    id: 18,
    rows: "visits",
    dimension: "day",
    measure: "rows",
    description: "Visits per day they began.",
  },
  {
    name: "visits_hours",
    id: 19,
    rows: "visits",
    dimension: "hour",
    measure: "rows",
    description: "Visits per hour of day they began, summed over the range.",
  },
  {
    name: "exit_page",
    id: 20,
    rows: "visits",
    dimension: "exit_page",
    measure: "rows",
    description: "Visits per page of their last pageview.",
  },
  {
    name: "bounces",
    id: 21,
    rows: "visits",
    dimension: "day",
    measure: "bounces",
    description: `Bounced visits per day: one pageview, and under ${BOUNCE_SECONDS} seconds.`,
  },
  {
    name: "visit_seconds",
    id: 22,
    rows: "visits",
    dimension: "day",
    measure: "seconds",
    description: "The durations of the day's visits in seconds, added up.",
  },
  {
    name: "visit_pageviews",
    id: 23,
    rows: "visits",
    dimension: "day",
    measure: "pageviews",
    description: "The pageviews of the day's visits.",
  },
] as const satisfies readonly StatDefinition[];

export type StatName = (typeof STATS)[number]["name"];

/** Accepted spellings that mean a catalog name. */
export const STAT_ALIASES: Readonly<Record<string, StatName>> = {
  pageviews_hour: "pageviews_hours",
  visitors_hour: "visitors_hours",
};

/**
 * A statistic of days whose count is one statistic divided by another, day by day (and over
 * a range, their sums divided): `of` per `per`, times `scale`, to `decimals` places.
 */
export interface RatioDefinition {
  readonly name: string;
  readonly of: StatName;
  readonly per: StatName;
  readonly scale: number;
  readonly decimals: number;
  readonly description: string;
}

export const RATIOS = [
  {
    name: "bounce_rate",
    of: "bounces",
    per: "visits",
    scale: 100,
    decimals: 1,
    description: "Bounced visits per 100 visits, per day (one decimal).",
  },
  {
    name: "visit_duration",
    of: "visit_seconds",
    per: "visits",
    scale: 1,
    decimals: 0,
    description: "Mean visit duration in seconds, per day (whole seconds).",
  },
  {
    name: "views_per_visit",
    of: "visit_pageviews",
    per: "visits",
    scale: 1,
    decimals: 2,
    description: "Pageviews per visit, per day (two decimals).",
  },
] as const satisfies readonly RatioDefinition[];

export const STAT_NAMES: readonly string[] = [
  ...STATS.map((stat) => stat.name),
  ...RATIOS.map((ratio) => ratio.name),
  ...Object.keys(STAT_ALIASES),
].sort();

/** `of` per `per` as the ratio gives it (null when `per` is 0). */
export function ratioValue(ratio: RatioDefinition, of: number, per: number): number | null {
  if (per === 0) return null;
  const factor = 10 ** ratio.decimals;
  return Math.round(((of * ratio.scale) / per) * factor) / factor;
}

export function ratioByName(name: string): RatioDefinition | null {
  return RATIOS.find((ratio) => ratio.name === name) ?? null;
}

export function statByName(name: string): StatDefinition | null {
  const canonical = STAT_ALIASES[name] ?? name;
  return STATS.find((stat) => stat.name === canonical) ?? null;
}
