// DuckDB SQL for the embedded store's aggregates: the rebuild of every statistic from raw
// events (count(*) or count(DISTINCT visitor) per day and value, generated from the
// statistics catalog), the compaction that merges batches' deltas, moves past days and
// rolls whole weeks up, and the statistics query over all of them. Aggregate rows hold a
// value's number (`value_id`, into stat_values), not the value itself. The incremental path
// (batch-aggregates.ts) must always agree with the rebuild; tests compare them.

import { type Dimension, type RowFilter, STATS } from "../../stats/catalog.js";
import type { StatsQuery } from "../../stats/stats-query.js";
import { dayNumberFromString, dayString, mondayOf } from "./batch-aggregates.js";
import { NUMBERED_TEXT } from "./event-rows.js";

const ROW_FILTERS: Record<RowFilter, string> = {
  pageviews: "kind = 0",
  visits: "kind = 0 AND is_visit",
  events: "kind = 1",
};

function dimensionSql(dimension: Dimension): string {
  if (dimension === "day") return "strftime(ts, '%Y-%m-%d')";
  if (dimension === "hour") return "strftime(ts, '%H')";
  return dimension; // a column of `events_geo`, named by the catalog only
}

/**
 * Every statistic recomputed from the events, in order: into a temporary table by value,
 * then the values not numbered yet into stat_values, then the rows by number into
 * daily_stats. A dimension the events hold as a number (NUMBERED_TEXT) is grouped by that
 * number, read from `events` alone, and named through text_values afterwards; the others
 * (days, hours, places) are grouped by their string, read from `events_geo`. `$1` is the
 * website id when `oneWebsite` (first statement only).
 */
export function rebuildSql(oneWebsite: boolean): string[] {
  const filter = oneWebsite ? " AND website_id = $1" : "";
  const parts = STATS.map((stat) => {
    const count = stat.measure === "rows" ? "count(*)" : "count(DISTINCT visitor)";
    const field = (NUMBERED_TEXT as readonly string[]).indexOf(stat.dimension);
    const [value, number, source] =
      field >= 0 ? ["NULL", stat.dimension, "events"] : [dimensionSql(stat.dimension), "NULL", "events_geo"];
    return `SELECT website_id, ${stat.id} AS stat, CAST(ts AS DATE) AS day, CAST(${value} AS VARCHAR) AS value,
        CAST(${field >= 0 ? field : "NULL"} AS UTINYINT) AS field, CAST(${number} AS UINTEGER) AS number, ${count} AS count
      FROM ${source} WHERE ${ROW_FILTERS[stat.rows]}${filter} GROUP BY ALL`;
  });
  const named = `(SELECT r.website_id, r.stat, r.day, coalesce(r.value, t.value) AS value, r.count
    FROM rebuilt r LEFT JOIN text_values t ON t.field = r.field AND t.id = r.number)`;
  return [
    `CREATE OR REPLACE TEMP TABLE rebuilt AS\n${parts.join("\nUNION ALL\n")}`,
    `INSERT INTO stat_values
       SELECT CAST((SELECT coalesce(max(id), 0) FROM stat_values) + row_number() OVER (ORDER BY value) AS UINTEGER), value
       FROM (SELECT DISTINCT value FROM ${named}) WHERE value NOT IN (SELECT value FROM stat_values)`,
    `INSERT INTO daily_stats (website_id, stat, day, value_id, count)
       SELECT r.website_id, r.stat, r.day, v.id, r.count FROM ${named} r JOIN stat_values v USING (value)
       ORDER BY r.website_id, r.stat, v.id, r.day`,
    "DROP TABLE rebuilt",
  ];
}

/** The roll-up's bound when nothing is rolled up: the first Monday of 1970. */
export const ROLLED_NOTHING = "1970-01-05";

/**
 * The first Monday whose week is not rolled up, as a store opening the file finds it: the
 * week after the newest in weekly_stats. The store keeps the bound in memory and moves it
 * forward with each roll-up. Weeks rolled up without any traffic leave no rows here, so
 * this may be earlier than the last roll-up's bound; but the days between have no rows in
 * daily_stats either (rows moved into them later were added to their week, which then has
 * rows), so reading them from daily_stats counts the same.
 */
export const WEEKS_BEFORE_SQL = `(SELECT coalesce(max(week) + 7, DATE '${ROLLED_NOTHING}') FROM weekly_stats)`;

/** A day's week: its Monday (ISO weeks). */
const WEEK_OF_DAY = "CAST(date_trunc('week', day) AS DATE)";

const KEY = ["website_id", "stat", "day", "value_id"];

/** Merges the deltas into daily_stats_recent (one row per key) and empties them, in order. */
export const MERGE_DELTAS_SQL = [
  `CREATE OR REPLACE TEMP TABLE merged AS
     SELECT website_id, stat, day, value_id, CAST(sum(count) AS BIGINT) AS count FROM daily_stats_deltas
     GROUP BY ALL HAVING sum(count) <> 0`,
  `UPDATE daily_stats_recent AS r SET count = r.count + m.count FROM merged AS m
     WHERE ${KEY.map((column) => `r.${column} = m.${column}`).join(" AND ")}`,
  `INSERT INTO daily_stats_recent SELECT * FROM merged AS m
     WHERE NOT EXISTS (SELECT 1 FROM daily_stats_recent AS r WHERE ${KEY.map((column) => `r.${column} = m.${column}`).join(" AND ")})`,
  "DELETE FROM daily_stats_deltas",
  "DROP TABLE merged",
];

/** The days of daily_stats_recent, newest first, to choose which days move. */
export const RECENT_DAYS_SQL =
  "SELECT DISTINCT strftime(day, '%Y-%m-%d') AS day FROM daily_stats_recent ORDER BY day DESC";

/**
 * Moves the days before `$1` from daily_stats_recent into daily_stats (sorted so value
 * runs compress); LATE_WEEKLY_SQL must run between the insert and the delete.
 */
export const MOVE_DAYS_SQL = {
  insert: `INSERT INTO daily_stats SELECT * FROM daily_stats_recent
     WHERE day < CAST($1 AS DATE) AND count <> 0 ORDER BY website_id, stat, value_id, day`,
  delete: "DELETE FROM daily_stats_recent WHERE day < CAST($1 AS DATE)",
};

/**
 * Before the moved days are rolled into new weeks: the moved rows of weeks already rolled
 * up (imports into the past) are added to their week too. `$1` is the move's bound, `$2`
 * the roll-up's bound the store reads with.
 */
export const LATE_WEEKLY_SQL = `INSERT INTO weekly_stats
  SELECT website_id, stat, ${WEEK_OF_DAY} AS week, value_id, CAST(sum(count) AS BIGINT) AS count FROM daily_stats_recent
  WHERE day < CAST($1 AS DATE) AND day < CAST($2 AS DATE) AND count <> 0
  GROUP BY ALL HAVING sum(count) <> 0`;

/** Rolls the days in [$1, $2) (whole weeks, all moved into daily_stats) up into weekly_stats. */
export function rollUpWeeksSql(oneWebsite: boolean): string {
  const filter = oneWebsite ? " AND website_id = $3" : "";
  return `INSERT INTO weekly_stats
    SELECT website_id, stat, ${WEEK_OF_DAY} AS week, value_id, CAST(sum(count) AS BIGINT) AS count FROM daily_stats
    WHERE day >= CAST($1 AS DATE) AND day < CAST($2 AS DATE)${filter}
    GROUP BY ALL HAVING sum(count) <> 0 ORDER BY website_id, stat, value_id, week`;
}

/**
 * The SQL of a statistics query: one page of values with the number of values (`total`,
 * in every row), and the number alone, for a page past the end. `weeksBefore` is the
 * roll-up's bound as the caller last saw it (WEEKS_BEFORE_SQL); one older than the stored
 * one reads fewer weeks from weekly_stats and more days from daily_stats, to the same sums.
 */
export function statQuerySql(
  query: StatsQuery,
  weeksBefore: string,
): Record<"page" | "total", { sql: string; params: (string | number)[] }> {
  const params: (string | number)[] = [
    query.websiteId,
    query.stat.id,
    query.from,
    query.to,
    ...windowParts(query, weeksBefore),
  ];
  const conditions = query.stat.omitsEmptyValue ? ["v.value <> ''"] : [];
  if (query.search) {
    params.push(query.search);
    conditions.push(`strpos(lower(v.value), $${params.length}) > 0`);
  }
  const where = conditions.join(" AND ") || "true";
  const order = query.sortBy === "count" ? "c.n" : "v.value";
  const direction = query.sort === "asc" ? "ASC" : "DESC";
  // Summed by number first (cheaper than by string), then named: only the values counted.
  const named = `(SELECT value_id, CAST(sum(count) AS BIGINT) AS n FROM ${STAT_ROWS_SQL}
        GROUP BY value_id HAVING sum(count) > 0) AS c
        JOIN stat_values AS v ON v.id = c.value_id WHERE ${where}`;
  return {
    page: {
      sql: `SELECT v.value, c.n, count(*) OVER () AS total FROM ${named}
        ORDER BY ${order} ${direction}, v.value ASC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      params: [...params, query.limit, query.offset],
    },
    total: { sql: `SELECT count(*) AS total FROM ${named}`, params },
  };
}

/**
 * From this many days of a rolled-up week inside the window on, the window reads that
 * week's roll-up minus its days outside the window (one or two days) instead of its days.
 */
const SUBTRACT_FROM_DAYS = 5;

/** Days read from daily_stats: first and last day numbers, and the sign of their counts. */
type DayRange = [first: number, last: number, sign: 1 | -1];

/**
 * How a window is read, as the query's parameters after website, statistic, from and to:
 * the rolled-up weeks to read from weekly_stats (first and last Monday), then the days
 * before them and the days after them, each with the sign their counts are added with.
 *
 * The weeks are the window's whole rolled-up weeks, and the days the window's days around
 * them (with no such week, the "last Monday" is the week before the first, so the days
 * before and after meet without overlapping). But where the window covers most of a
 * rolled-up week at either end (from Wednesday to Sunday, or from Monday to Friday), that
 * week is read whole and its days outside the window subtracted: weekly_stats holds every
 * day of a rolled-up week, so the sums are exact, and a 30-day window reads about a third
 * fewer rows where traffic has many values.
 */
function windowParts(query: StatsQuery, weeksBefore: string): (string | number)[] {
  const from = dayNumberFromString(query.from);
  const to = dayNumberFromString(query.to);
  const bound = dayNumberFromString(weeksBefore); // weeks whose Monday is before it are rolled up
  const first = mondayOf(from + 6);
  const last = Math.max(first - 7, Math.min(mondayOf(to - 6), bound - 7));
  const weeks = [first, last];
  let before: DayRange = [from, Math.min(to, first - 1), 1];
  let after: DayRange = [Math.max(from, last + 7), to, 1];
  const leadingWeek = first - 7;
  if (first - from >= SUBTRACT_FROM_DAYS && to >= first - 1 && leadingWeek < bound) {
    weeks[0] = leadingWeek;
    before = [leadingWeek, from - 1, -1];
  }
  const trailingWeek = last + 7;
  if (to - trailingWeek + 1 >= SUBTRACT_FROM_DAYS && trailingWeek < bound && from <= trailingWeek) {
    weeks[1] = trailingWeek;
    after = [to + 1, trailingWeek + 6, -1];
  }
  const days = ([first, last, sign]: DayRange) => [dayString(first), dayString(last), sign];
  return [...weeks.map(dayString), ...days(before), ...days(after)];
}

/**
 * One website's statistic, with the parameters cast to the columns' types: otherwise
 * DuckDB casts the column for every row (UTINYINT to INTEGER) and cannot skip by min/max.
 */
const OF_STAT = "website_id = CAST($1 AS INTEGER) AND stat = CAST($2 AS UTINYINT)";

/**
 * The aggregate rows of one statistic over a window, for reading: the rolled-up weeks
 * from weekly_stats (a value's row per week instead of seven), the days around them from
 * daily_stats, each range with its sign, and the days not moved yet from
 * daily_stats_recent and daily_stats_deltas. Parameters: website, statistic, from, to,
 * then windowParts(). Plain day ranges, so each scan skips what lies outside them.
 */
export const STAT_ROWS_SQL = `(${[
  ["weekly_stats", "week", "$5", "$6", ""],
  ["daily_stats", "day", "$7", "$8", "$9"],
  ["daily_stats", "day", "$10", "$11", "$12"],
  ["daily_stats_recent", "day", "$3", "$4", ""],
  ["daily_stats_deltas", "day", "$3", "$4", ""],
]
  .map(
    ([table, column, first, last, sign]) =>
      `SELECT value_id, ${sign ? `count * CAST(${sign} AS BIGINT) AS count` : "count"} FROM ${table} WHERE ${OF_STAT} AND ${column} BETWEEN CAST(${first} AS DATE) AND CAST(${last} AS DATE)`,
  )
  .join("\n  UNION ALL\n  ")})`;
