// DuckDB SQL for the aggregates, generated from the statistics catalog: every statistic
// recomputed from raw events (count(*) or count(DISTINCT visitor) per day and value). The
// incremental path (batch-aggregates.ts) must always agree with this; tests compare them.

import { type Dimension, type RowFilter, STATS } from "../../stats/catalog.js";

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

/** Merges the recent deltas into one row per (website, statistic, day, value): step 1. */
export const MERGE_RECENT_SQL = `CREATE OR REPLACE TEMP TABLE merged AS
  SELECT website_id, stat, day, value, sum(count) AS count FROM daily_stats_recent GROUP BY ALL`;

/** Rows per day of the merged deltas, newest first, to choose which days stay recent. */
export const MERGED_DAYS_SQL =
  "SELECT strftime(day, '%Y-%m-%d') AS day, count(*) AS n FROM merged GROUP BY day ORDER BY day DESC";

/** Step 2: days before `$1` move into daily_stats (sorted so value runs compress); the rest stay. */
export const MOVE_MERGED_SQL = [
  "DELETE FROM daily_stats_recent",
  `INSERT INTO daily_stats SELECT * FROM merged
     WHERE day < CAST($1 AS DATE) AND count <> 0 ORDER BY website_id, stat, value, day`,
  "INSERT INTO daily_stats_recent SELECT * FROM merged WHERE day >= CAST($1 AS DATE) AND count <> 0",
  "DROP TABLE merged",
];

/** Both aggregate tables, for reading. */
export const ALL_STATS_SQL = "(SELECT * FROM daily_stats UNION ALL SELECT * FROM daily_stats_recent)";
