// ClickHouse SQL for the aggregates, generated from the statistics catalog: the one
// definition of every statistic. One SELECT turns raw events into rows per (website,
// statistic, day, value), through ARRAY JOIN (one row per event and statistic it counts
// for). The row view runs it on every insert block, folding runs it over closed days,
// queries over the days still open and rebuilds over everything, so none can disagree.
// Visit statistics are not counted per event but per visit: visit-sql.ts.

import { type Dimension, type RowFilter, STATS, type StatDefinition } from "../../stats/catalog.js";
import { type Sql, sql, sqlIdentifier, sqlJoin } from "./sql-escape.js";

/** What an event counts for; visits are made of several events, so they have no row filter. */
type EventRows = Exclude<RowFilter, "visits">;

const ROW_FILTERS: Record<EventRows, Sql> = {
  pageviews: sql`kind = 0`,
  entrances: sql`kind = 0 AND is_visit = 1`,
  events: sql`kind = 1`,
};

function rowFilter(stat: StatDefinition): Sql {
  if (stat.rows === "visits") throw new Error(`${stat.name} counts visits: see visit-sql.ts`);
  return ROW_FILTERS[stat.rows];
}

/** How a SELECT reads events' day and hour: the stored UTC ones, or local ones (local-time.ts). */
export interface TimeSql {
  day: Sql;
  hour: Sql;
  /** The hour (HH) of another instant, a DateTime expression (a visit's start). */
  hourAt(instant: Sql): Sql;
}

const utcHour = (instant: Sql) => sql`formatDateTime(${instant}, '%H', 'UTC')`;
export const UTC_TIME: TimeSql = { day: sql`day`, hour: utcHour(sql`ts`), hourAt: utcHour };

function valueSql(dimension: Dimension, time: TimeSql): Sql {
  if (dimension === "day") return sql`toString(${time.day})`;
  if (dimension === "hour") return time.hour;
  if (dimension === "exit_page")
    throw new Error("the exit page is a visit's, not an event's: see visit-sql.ts");
  return sqlIdentifier(dimension); // a column of the events table, named by the catalog only
}

/**
 * Statistics counting event rows (summed in row_stats_local as events arrive). Not visits:
 * the row view's SELECT is fixed by the migration that created it, and visits cannot be
 * added up block by block (a visit's events may come in several).
 */
export const ROW_STATS: readonly StatDefinition[] = STATS.filter(
  (stat) => stat.measure === "rows" && stat.rows !== "visits",
);
/** Statistics counting unique visitors (folded per closed day, counted from raw events while open). */
export const VISITOR_STATS: readonly StatDefinition[] = STATS.filter((stat) => stat.measure === "visitors");
/** Statistics of visits (visit-sql.ts): folded per closed day like the unique-visitor ones. */
export const VISIT_STATS: readonly StatDefinition[] = STATS.filter((stat) => stat.rows === "visits");
/** Statistics a node folds per closed day (day-folds.ts) instead of the row view summing them. */
export function isFolded(stat: StatDefinition): boolean {
  return stat.measure === "visitors" || stat.rows === "visits";
}

type VisitorRows = Extract<(typeof STATS)[number], { measure: "visitors" }>["rows"];
/**
 * What every unique-visitor statistic counts: a fold is current when it counted as many
 * pageviews as its day holds (see migrations.ts), so a statistic counting anything else is
 * a type error here.
 */
export const VISITOR_ROWS: [VisitorRows] extends ["pageviews"] ? "pageviews" : never = "pageviews";

/** The statistic of pageviews per day: a day's pageview count on a node is its sum in row_stats_local. */
export const PAGEVIEWS_PER_DAY = STATS.find(
  (stat) => stat.measure === "rows" && stat.rows === "pageviews" && stat.dimension === "day",
) as StatDefinition;

/** The statistic whose rows tell a fold's pageviews (any would do; this one has a row a day). */
export const FOLD_MARKER =
  (VISITOR_STATS.find((stat) => stat.dimension === "day") ?? VISITOR_STATS[0])?.id ?? 0;

export const COUNT_ROWS = sql`count() AS hits`;
/** Distinct visitors of a group, and the pageviews it holds (a fold's check, see migrations.ts). */
export const COUNT_VISITORS = sql`uniqExact(visitor) AS visitors, count() AS pageviews`;

/**
 * Rows (website_id, stat, day, value, then the `counted` columns) of `stats` from `events`
 * (a qualified table), over the events `where` selects; days and hours as `time` reads them.
 */
export function statSelect(
  stats: readonly StatDefinition[],
  counted: Sql,
  events: Sql,
  where?: Sql,
  time: TimeSql = UTC_TIME,
): Sql {
  const [only] = stats;
  // The day column is the group's day; local days are named local_day (a column named day
  // computed from a column named day confuses 18.16's analyser).
  const day = time === UTC_TIME ? sql`day` : sql`${time.day} AS local_day`;
  const dayKey = time === UTC_TIME ? sql`day` : sql`local_day`;
  if (stats.length === 1 && only) {
    // The same rows without ARRAY JOIN, which costs a query of today's events about 20%.
    return sql`SELECT website_id, toUInt8(${only.id}) AS stat, ${day}, ${valueSql(only.dimension, time)} AS value, ${counted}
      FROM ${events} WHERE ${rowFilter(only)}${where ? sql` AND ${where}` : sql``}
      GROUP BY website_id, stat, ${dayKey}, value`;
  }
  const tuples = stats.map(
    (stat) => sql`(toUInt8(${stat.id}), ${valueSql(stat.dimension, time)}, toUInt8(${rowFilter(stat)}))`,
  );
  return sql`SELECT website_id, tupleElement(s, 1) AS stat, ${day}, tupleElement(s, 2) AS value, ${counted}
    FROM ${events}
    ARRAY JOIN arrayFilter(x -> tupleElement(x, 3) = 1, [${sqlJoin(tuples, ", ")}]) AS s
    ${where ? sql`WHERE ${where}` : sql``}
    GROUP BY website_id, stat, ${dayKey}, value`;
}

/** Events of the UTC days `days` (YYYY-MM-DD), with a range of `ts` the primary key can use. */
export function onDays(days: readonly string[]): Sql {
  const seconds = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  return sql`ts >= toDateTime(${Math.min(...seconds)}) AND ts < toDateTime(${Math.max(...seconds) + 86_400})
    AND day IN (${sqlJoin(
      days.map((day) => sql`${day}`),
      ", ",
    )})`;
}
