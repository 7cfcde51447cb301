// ClickHouse SQL for the aggregates, generated from the statistics catalog. One SELECT turns
// raw events into aggregate rows (one per event and statistic it counts for, through ARRAY
// JOIN): the materialized views run it on every insert block, and the rebuild runs it over
// the stored events, so the two cannot disagree.

import { type Dimension, type Measure, type RowFilter, STATS } from "../../stats/catalog.js";
import { type Sql, sql, sqlIdentifier, sqlJoin } from "./sql-escape.js";

const ROW_FILTERS: Record<RowFilter, Sql> = {
  pageviews: sql`kind = 0`,
  visits: sql`kind = 0 AND is_visit = 1`,
  events: sql`kind = 1`,
};

function valueSql(dimension: Dimension): Sql {
  if (dimension === "day") return sql`toString(day)`;
  if (dimension === "hour") return sql`formatDateTime(ts, '%H', 'UTC')`;
  return sqlIdentifier(dimension); // a column of the events table, named by the catalog only
}

/** The statistics counting rows (summed) and those counting unique visitors (uniqExact states). */
export const MEASURES: readonly Measure[] = ["rows", "visitors"];

/**
 * Aggregate rows of `measure` from `events` (a qualified table), optionally of one website:
 * columns website_id, stat, day, value and `hits` (rows) or `visitors` (a uniqExact state).
 */
export function aggregateSelect(measure: Measure, events: Sql, websiteId?: number): Sql {
  const tuples = STATS.filter((stat) => stat.measure === measure).map(
    (stat) => sql`(toUInt8(${stat.id}), ${valueSql(stat.dimension)}, toUInt8(${ROW_FILTERS[stat.rows]}))`,
  );
  const counted = measure === "rows" ? sql`count() AS hits` : sql`uniqExactState(visitor) AS visitors`;
  const where = websiteId === undefined ? sql`` : sql`WHERE website_id = ${websiteId}`;
  return sql`SELECT website_id, tupleElement(s, 1) AS stat, day, tupleElement(s, 2) AS value, ${counted}
    FROM ${events}
    ARRAY JOIN arrayFilter(x -> tupleElement(x, 3) = 1, [${sqlJoin(tuples, ", ")}]) AS s
    ${where}
    GROUP BY website_id, stat, day, value`;
}
