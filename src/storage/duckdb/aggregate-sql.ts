// DuckDB SQL for the aggregates, generated from the statistics catalog: every statistic
// recomputed from raw events (count(*) or count(DISTINCT visitor) per day and value). The
// incremental path (batch-aggregates.ts) must always agree with this; tests compare them.

import { type Dimension, type RowFilter, STATS } from "../../stats/catalog.js";
import type { StatsQuery } from "../../stats/stats-query.js";
import { dayNumberFromString, dayString, mondayOf } from "./batch-aggregates.js";

const ROW_FILTERS: Record<RowFilter, string> = {
  pageviews: "kind = 0",
  visits: "kind = 0 AND is_visit",
  events: "kind = 1",
};

function dimensionSql(dimension: Dimension): string {
  if (dimension === "day") return "strftime(ts, '%Y-%m-%d')";
  if (dimension === "hour") return "strftime(ts, '%H')";
  return dimension; // a column of `events_view`, named by the catalog only
}

/** Inserts every statistic recomputed from the events; `$1` is the website id when `oneWebsite`. */
export function rebuildSql(oneWebsite: boolean): string {
  const filter = oneWebsite ? " AND website_id = $1" : "";
  const parts = STATS.map((stat) => {
    const count = stat.measure === "rows" ? "count(*)" : "count(DISTINCT visitor)";
    return `SELECT website_id, ${stat.id} AS stat, CAST(ts AS DATE) AS day, ${dimensionSql(stat.dimension)} AS value, ${count} AS count
      FROM events_view WHERE ${ROW_FILTERS[stat.rows]}${filter} GROUP BY ALL`;
  });
  return `INSERT INTO daily_stats (website_id, stat, day, value, count)\n${parts.join("\nUNION ALL\n")}`;
}

/**
 * The first Monday whose week is not rolled up: the week after the newest in weekly_stats.
 * Weeks rolled up with no traffic at all leave no rows, so this may be earlier than the
 * last roll-up's bound; the days between have no rows in daily_stats either, so reading
 * them from daily_stats, or rolling them up again, counts the same.
 */
export const WEEKS_BEFORE_SQL = "(SELECT coalesce(max(week) + 7, DATE '1970-01-05') FROM weekly_stats)";

/** A day's week: its Monday (ISO weeks). */
const WEEK_OF_DAY = "CAST(date_trunc('week', day) AS DATE)";

/** Merges the recent deltas into one row per (website, statistic, day, value): step 1. */
export const MERGE_RECENT_SQL = `CREATE OR REPLACE TEMP TABLE merged AS
  SELECT website_id, stat, day, value, sum(count) AS count FROM daily_stats_recent GROUP BY ALL`;

/** The days of the merged deltas, newest first, to choose which days stay recent. */
export const MERGED_DAYS_SQL =
  "SELECT DISTINCT strftime(day, '%Y-%m-%d') AS day FROM merged ORDER BY day DESC";

/** Step 2: days before `$1` move into daily_stats (sorted so value runs compress); the rest stay. */
export const MOVE_MERGED_SQL = [
  "DELETE FROM daily_stats_recent",
  `INSERT INTO daily_stats SELECT * FROM merged
     WHERE day < CAST($1 AS DATE) AND count <> 0 ORDER BY website_id, stat, value, day`,
  "INSERT INTO daily_stats_recent SELECT * FROM merged WHERE day >= CAST($1 AS DATE) AND count <> 0",
];

/**
 * Step 3, before the move's rows are rolled into new weeks: the moved rows of weeks already
 * rolled up (imports into the past) are added to their week too. `$1` is the move's bound.
 */
export const LATE_WEEKLY_SQL = `INSERT INTO weekly_stats
  SELECT website_id, stat, ${WEEK_OF_DAY} AS week, value, CAST(sum(count) AS BIGINT) AS count FROM merged
  WHERE day < CAST($1 AS DATE) AND day < ${WEEKS_BEFORE_SQL} AND count <> 0
  GROUP BY ALL HAVING sum(count) <> 0`;

/** Rolls the days in [$1, $2) (whole weeks, all moved into daily_stats) up into weekly_stats. */
export function rollUpWeeksSql(oneWebsite: boolean): string {
  const filter = oneWebsite ? " AND website_id = $3" : "";
  return `INSERT INTO weekly_stats
    SELECT website_id, stat, ${WEEK_OF_DAY} AS week, value, CAST(sum(count) AS BIGINT) AS count FROM daily_stats
    WHERE day >= CAST($1 AS DATE) AND day < CAST($2 AS DATE)${filter}
    GROUP BY ALL HAVING sum(count) <> 0 ORDER BY website_id, stat, value, week`;
}

/**
 * The SQL of a statistics query: one page of values with the number of values (`total`,
 * in every row), and the number alone, for a page past the end.
 */
export function statQuerySql(
  query: StatsQuery,
): Record<"page" | "total", { sql: string; params: (string | number)[] }> {
  const params: (string | number)[] = [
    query.websiteId,
    query.stat.id,
    query.from,
    query.to,
    ...wholeWeeks(query),
  ];
  let where = "true";
  if (query.search) {
    params.push(query.search);
    where = `strpos(lower(value), $${params.length}) > 0`;
  }
  const order = query.sortBy === "count" ? "n" : "value";
  const direction = query.sort === "asc" ? "ASC" : "DESC";
  return {
    page: {
      sql: `SELECT value, CAST(sum(count) AS BIGINT) AS n, count(*) OVER () AS total
        FROM ${STAT_ROWS_SQL} WHERE ${where}
        GROUP BY value HAVING sum(count) > 0
        ORDER BY ${order} ${direction}, value ASC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      params: [...params, query.limit, query.offset],
    },
    total: {
      sql: `SELECT count(*) AS total FROM (SELECT value FROM ${STAT_ROWS_SQL} WHERE ${where} GROUP BY value HAVING sum(count) > 0)`,
      params,
    },
  };
}

/** The first and last Monday of the whole weeks inside the window (first after last when none fits). */
function wholeWeeks(query: StatsQuery): [string, string] {
  const first = mondayOf(dayNumberFromString(query.from) + 6);
  const last = mondayOf(dayNumberFromString(query.to) - 6);
  return [dayString(first), dayString(last)];
}

/**
 * The aggregate rows of one statistic over a window, for reading: whole weeks inside the
 * window that are rolled up come from weekly_stats (a value's row per week instead of
 * seven), the other days from daily_stats, and the days not yet moved from
 * daily_stats_recent. Parameters: website, statistic, from, to, first and last Monday of
 * the window's whole weeks. Each query reads the roll-up's bound in its own snapshot, so
 * a concurrent roll-up is never counted twice.
 */
export const STAT_ROWS_SQL = `(
  SELECT value, count FROM weekly_stats
    WHERE website_id = $1 AND stat = $2 AND week BETWEEN CAST($5 AS DATE) AND CAST($6 AS DATE)
  UNION ALL
  SELECT value, count FROM daily_stats
    WHERE website_id = $1 AND stat = $2 AND day BETWEEN CAST($3 AS DATE) AND CAST($4 AS DATE)
      AND (day < CAST($5 AS DATE) OR day > CAST($6 AS DATE) + 6 OR day >= ${WEEKS_BEFORE_SQL})
  UNION ALL
  SELECT value, count FROM daily_stats_recent
    WHERE website_id = $1 AND stat = $2 AND day BETWEEN CAST($3 AS DATE) AND CAST($4 AS DATE)
)`;

/** Both daily aggregate tables, for tools that read every day's rows. */
export const ALL_STATS_SQL = "(SELECT * FROM daily_stats UNION ALL SELECT * FROM daily_stats_recent)";
