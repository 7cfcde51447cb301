// The one catalog of statistics. Each name says which stored events it counts (pageviews,
// visits or custom events), what it groups them by (the day, the hour of day, or a column)
// and how it counts (rows, or unique visitors: distinct visitors per day). The HTTP enum,
// the aggregate maintenance, the rebuild and the queries are all derived from this table.

export type RowFilter = "pageviews" | "visits" | "events";
export type Measure = "rows" | "visitors";
/** The stored column a statistic groups by, or the event's day or hour in the website's time zone. */
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
  | "event";

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
    rows: "visits",
    dimension: "page",
    measure: "rows",
    description: "Visits per page they began on.",
  },
  {
    name: "referrer",
    id: 7,
    rows: "visits",
    dimension: "referrer",
    measure: "rows",
    description: 'Visits per referrer host ("" for direct).',
  },
  {
    name: "campaign",
    id: 8,
    rows: "visits",
    dimension: "campaign",
    measure: "rows",
    description: "Visits per utm_campaign (visits without one are not listed).",
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
] as const satisfies readonly StatDefinition[];

export type StatName = (typeof STATS)[number]["name"];

/** Accepted spellings that mean a catalog name. */
export const STAT_ALIASES: Readonly<Record<string, StatName>> = {
  pageviews_hour: "pageviews_hours",
  visitors_hour: "visitors_hours",
};

export const STAT_NAMES: readonly string[] = [
  ...STATS.map((stat) => stat.name),
  ...Object.keys(STAT_ALIASES),
].sort();

export function statByName(name: string): StatDefinition | null {
  const canonical = STAT_ALIASES[name] ?? name;
  return STATS.find((stat) => stat.name === canonical) ?? null;
}
