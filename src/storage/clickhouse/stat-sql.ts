// Compiles a StatsQuery into ClickHouse SQL over the aggregate tables: the page of values
// and the number of distinct values (18.16 has no window functions, so that is a second
// query). Unique visitors are counted per day and summed over the days, as the contract's
// distinct (day, visitor) asks; every value enters through the `sql` template.

import type { StatsQuery } from "../../stats/stats-query.js";
import { type Sql, sql, sqlJoin } from "./sql-escape.js";

export interface StatTables {
  rowStats: Sql;
  visitorStats: Sql;
}

export interface CompiledStat {
  page: Sql;
  total: Sql;
  /**
   * For unique visitors over Distributed tables: each shard counts its own visitors per
   * (day, value) and the initiator only sums, which is exact because inserts shard by
   * (website, visitor), so a visitor's day lives on one shard.
   */
  settings: { distributed_group_by_no_merge?: "1" };
}

export function compileStat(query: StatsQuery, tables: StatTables): CompiledStat {
  const conditions = [
    sql`website_id = ${query.websiteId}`,
    sql`stat = ${query.stat.id}`,
    sql`day >= toDate(${query.from})`,
    sql`day <= toDate(${query.to})`,
  ];
  if (query.stat.omitsEmptyValue) conditions.push(sql`value != ''`);
  // The needle is lowercase (StatsQuery); position() matches it literally, % and _ included.
  if (query.search) conditions.push(sql`position(lowerUTF8(value), ${query.search}) > 0`);
  const where = sqlJoin(conditions, " AND ");
  const visitors = query.stat.measure === "visitors";
  const perDay = visitors
    ? sql`SELECT day, value, uniqExactMerge(visitors) AS day_count FROM ${tables.visitorStats}
        WHERE ${where} GROUP BY day, value`
    : sql`SELECT value, sum(hits) AS day_count FROM ${tables.rowStats} WHERE ${where} GROUP BY value`;
  const grouped = sql`SELECT value, sum(day_count) AS n FROM (${perDay}) GROUP BY value HAVING n > 0`;
  const order = query.sortBy === "count" ? sql`n` : sql`value`;
  const direction = query.sort === "asc" ? sql`ASC` : sql`DESC`;
  return {
    page: sql`${grouped} ORDER BY ${order} ${direction}, value ASC LIMIT ${query.offset}, ${query.limit}`,
    total: sql`SELECT count() AS total FROM (${grouped})`,
    settings: visitors ? { distributed_group_by_no_merge: "1" } : {},
  };
}
