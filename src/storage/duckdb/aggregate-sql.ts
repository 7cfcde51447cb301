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
  return dimension; // a column of `events`, named by the catalog only
}

/** Inserts every statistic recomputed from `events`; `$1` is the website id when `oneWebsite`. */
export function rebuildSql(oneWebsite: boolean): string {
  const filter = oneWebsite ? " AND website_id = $1" : "";
  const parts = STATS.map((stat) => {
    const count = stat.measure === "rows" ? "count(*)" : "count(DISTINCT visitor)";
    return `SELECT website_id, ${stat.id} AS stat, CAST(ts AS DATE) AS day, ${dimensionSql(stat.dimension)} AS value, ${count} AS count
      FROM events WHERE ${ROW_FILTERS[stat.rows]}${filter} GROUP BY ALL`;
  });
  return `INSERT INTO daily_stats (website_id, stat, day, value, count)\n${parts.join("\nUNION ALL\n")}`;
}

/** Merges the deltas of the days from `$1` to `$2` into one row per (website, stat, day, value). */
export const COMPACT_SQL = [
  `CREATE OR REPLACE TEMP TABLE compacted AS
     SELECT website_id, stat, day, value, sum(count) AS count FROM daily_stats
     WHERE day BETWEEN CAST($1 AS DATE) AND CAST($2 AS DATE) GROUP BY ALL`,
  "DELETE FROM daily_stats WHERE day BETWEEN CAST($1 AS DATE) AND CAST($2 AS DATE)",
  "INSERT INTO daily_stats SELECT website_id, stat, day, value, count FROM compacted WHERE count <> 0",
  "DROP TABLE compacted",
];
