// DuckDB SQL for the aggregates, generated from the statistics catalog: `daily_stats` holds
// one count per (website, statistic, UTC day, value). Its size depends on days and distinct
// values, not on the number of events, so queries cost the same at 1M or 100M events.
//
// - rebuildSql: every statistic from raw events (count(*) or count(DISTINCT visitor)).
// - batchDeltaSql: what one batch adds. Row counts are additive. Unique visitors stay exact:
//   a batch's (website, day, visitor, value) keys count only if the day's earlier events
//   (`prior`, the stored events of the same visitors on the same days) do not have them.

import { type Dimension, type RowFilter, STATS, type StatDefinition } from "../../stats/catalog.js";

const ROW_FILTERS: Record<RowFilter, string> = {
  pageviews: "kind = 0",
  visits: "kind = 0 AND is_visit",
  events: "kind = 1",
};

export function dimensionSql(dimension: Dimension): string {
  if (dimension === "day") return "strftime(ts, '%Y-%m-%d')";
  if (dimension === "hour") return "strftime(ts, '%H')";
  return dimension; // a column of `events`, named by the catalog only
}

function grouped(stat: StatDefinition, source: string, count: string, extraFilter = ""): string {
  return `SELECT website_id, CAST(ts AS DATE) AS day, ${stat.id} AS stat, ${dimensionSql(stat.dimension)} AS value, ${count} AS count
    FROM ${source} WHERE ${ROW_FILTERS[stat.rows]}${extraFilter} GROUP BY ALL`;
}

/** Recomputes every statistic from `events`; `$1` is the website id when `oneWebsite`. */
export function rebuildSql(oneWebsite: boolean): string {
  const filter = oneWebsite ? " AND website_id = $1" : "";
  const parts = STATS.map((stat) =>
    grouped(stat, "events", stat.measure === "rows" ? "count(*)" : "count(DISTINCT visitor)", filter),
  );
  return `INSERT INTO daily_stats (website_id, day, stat, value, count)\n${parts.join("\nUNION ALL\n")}`;
}

/** The counts a batch (temp table `batch`) adds, given the earlier events of its visitors (`prior`). */
export function batchDeltaSql(): string {
  const parts = STATS.map((stat) => {
    if (stat.measure === "rows") return grouped(stat, "batch", "count(*)");
    // New keys per day: the batch's (website, day, visitor, value) not already in `prior`.
    const keys = (source: string) =>
      `SELECT website_id, CAST(ts AS DATE) AS day, visitor, ${dimensionSql(stat.dimension)} AS value
        FROM ${source} WHERE ${ROW_FILTERS[stat.rows]}`;
    return `SELECT website_id, day, ${stat.id} AS stat, value, count(*) AS count FROM (
      ${keys("batch")} EXCEPT ${keys("prior")}
    ) GROUP BY ALL`;
  });
  return `INSERT INTO daily_stats (website_id, day, stat, value, count)
    ${parts.join("\nUNION ALL\n")}
    ON CONFLICT (website_id, stat, day, value) DO UPDATE SET count = count + EXCLUDED.count`;
}

/** The stored events of the batch's visitors on the batch's days: what "seen before" means. */
export const PRIOR_SQL = `CREATE OR REPLACE TEMP TABLE prior AS
  SELECT * FROM events
  WHERE kind = 0 AND ts >= $1 AND ts < $2
    AND website_id IN (SELECT DISTINCT website_id FROM batch)
    AND visitor IN (SELECT DISTINCT visitor FROM batch WHERE kind = 0)`;
