// Compiles a StatsQuery into ClickHouse SQL; every value enters through the `sql` template.
// Row statistics: the page of values and the number of distinct values from row_stats (18.16
// has no window functions, so that is a second query). Unique visitors (distinct visitors
// per day, summed over the days) and visits (visit-sql.ts): on each node, each day from its
// current fold or, while it has none, from its raw events (see migrations.ts); the nodes'
// counts are added here.
// A filtered query counts from each node's raw events (the aggregates count all events), and
// so does a query in a time zone other than UTC (the aggregates count UTC days): local days
// and hours are the stored instants plus the zone's offsets (stats/time-zone.ts).

import { comparesWhole, isNegated, type StatsFilter } from "../../stats/stats-filter.js";
import type { DaysQuery, StatsPage, StatsQuery } from "../../stats/stats-query.js";
import { DEFAULT_TIME_ZONE, zoneRule } from "../../stats/time-zone.js";
import { FOLD_MARKER, onDays, PAGEVIEWS_PER_DAY, statSelect } from "./aggregate-sql.js";
import { localTime, ofLocalDays } from "./local-time.js";
import { type Sql, sql, sqlIdentifier, sqlJoin } from "./sql-escape.js";
import { countsSelect, visitSelect } from "./visit-sql.js";

/** A day of the range with pageviews on a node, and its current fold ("0": none, count it raw). */
export interface DayPlan {
  day: string;
  fold: string;
}

function inRange(query: StatsQuery): Sql {
  return sql`website_id = ${query.websiteId} AND day >= toDate(${query.from}) AND day <= toDate(${query.to})`;
}

/** The statistic's own conditions on the value: no empty value where it means "none", the search. */
export function valueConditions(query: StatsQuery): Sql[] {
  const conditions: Sql[] = [];
  if (query.stat.omitsEmptyValue) conditions.push(sql`value != ''`);
  // The needle is lowercase (StatsQuery); position() matches it literally, % and _ included.
  if (query.search) conditions.push(sql`position(lowerUTF8(value), ${query.search}) > 0`);
  return conditions;
}

export function compileRowStat(query: StatsQuery, rowStats: Sql): { page: Sql; total: Sql } {
  const where = sqlJoin([inRange(query), sql`stat = ${query.stat.id}`, ...valueConditions(query)], " AND ");
  const grouped = sql`SELECT value, sum(hits) AS n FROM ${rowStats} WHERE ${where} GROUP BY value HAVING n > 0`;
  const order = query.sortBy === "count" ? sql`n` : sql`value`;
  const direction = query.sort === "asc" ? sql`ASC` : sql`DESC`;
  return {
    page: sql`${grouped} ORDER BY ${order} ${direction}, value ASC LIMIT ${query.offset}, ${query.limit}`,
    total: sql`SELECT count() AS total FROM (${grouped})`,
  };
}

/**
 * On one node (`db` qualifies its local tables): each day of the range with pageviews, with
 * the fold that counted exactly the day's pageviews (the current one; of equal ones the
 * newest, which a cleanup never deletes). A fold is one part, every statistic in it, so its
 * marker statistic (one row a day) speaks for all.
 */
export function visitorPlanSql(query: StatsQuery, db: Sql): Sql {
  return sql`SELECT toString(day) AS day, toString(fold) AS fold FROM (SELECT day, fold FROM (
      SELECT day, sum(hits) AS pageviews FROM ${db}.row_stats_local
      WHERE ${inRange(query)} AND stat = ${PAGEVIEWS_PER_DAY.id} GROUP BY day
    ) AS days ANY LEFT JOIN (
      SELECT day, pageviews, argMax(fold, at) AS fold FROM (
        SELECT day, fold, sum(pageviews) AS pageviews, max(folded_at) AS at FROM ${db}.visitor_counts_local
        WHERE ${inRange(query)} AND stat = ${FOLD_MARKER} GROUP BY day, fold
      ) GROUP BY day, pageviews
    ) AS folds USING (day, pageviews))`;
}

/**
 * On the node `plan` came from: the statistic's visitors (or visits) per value over the
 * range, each day from the fold the plan chose (folds are never changed, so the plan holds
 * while this runs) or from the raw events of the days it has none for. Null when the range
 * has no pageviews (then it has no visits either: a visit starts at a pageview).
 */
export function visitorCountsSql(query: StatsQuery, db: Sql, plan: readonly DayPlan[]): Sql | null {
  const folds = plan.filter((day) => day.fold !== "0").map((day) => sql`${BigInt(day.fold)}`);
  const open = plan.filter((day) => day.fold === "0").map((day) => day.day);
  const where = (conditions: Sql[]) => sqlJoin([...conditions, ...valueConditions(query)], " AND ");
  const parts: Sql[] = [];
  if (folds.length > 0) {
    const chosen = sql`${inRange(query)} AND stat = ${query.stat.id} AND fold IN (${sqlJoin(folds, ", ")})`;
    parts.push(sql`SELECT value, visitors FROM ${db}.visitor_counts_local WHERE ${where([chosen])}`);
  }
  if (open.length > 0) {
    const raw = countsSelect(
      query.stat,
      sql`${db}.events_local`,
      sql`website_id = ${query.websiteId} AND ${onDays(open)}`,
    );
    parts.push(sql`SELECT value, n AS visitors FROM (${raw}) WHERE ${where([sql`1`])}`);
  }
  if (parts.length === 0) return null;
  // One row of two arrays: parsed at once, about 5x faster than a row a value (8,500 cities).
  return sql`SELECT groupArray(value) AS value_list, groupArray(toFloat64(n)) AS count_list FROM (
      SELECT value, sum(visitors) AS n FROM (${sqlJoin(parts, " UNION ALL ")}) GROUP BY value
    )`;
}

/** A filter as a condition on the events (stats-filter.ts); the value enters through `sql`. */
function filterSql(filter: StatsFilter): Sql {
  const { dimension, operator, value } = filter;
  const column = sqlIdentifier(dimension.column); // a column of the events table, named by the filters only
  // A custom event's name is what comes before the first colon of name:value:unit.
  const text = dimension.of === "events" ? sql`splitByChar(':', ${column})[1]` : column;
  let held = comparesWhole(operator)
    ? sql`${text} = ${value}`
    : sql`position(lowerUTF8(${text}), ${value}) > 0`;
  if (dimension.of === "entrances") held = sql`(kind = 0 AND is_visit = 1 AND ${held})`;
  if (dimension.of === "events") held = sql`(kind = 1 AND ${held})`;
  return isNegated(operator) ? sql`NOT (${held})` : held;
}

/** Whether the aggregates (kept per UTC day) can answer the query: not in another zone. */
export function countsUtcDays(query: Pick<StatsQuery, "zone">): boolean {
  return query.zone === DEFAULT_TIME_ZONE || zoneRule(query.zone).isUtc;
}

/**
 * On one node: the statistic's counts per value over the range's local days, from the raw
 * events every filter holds for, or of visits from the visits with such an event (events
 * are sharded by visitor, so each node's distinct visitors and visits are its own and the
 * nodes' counts add up), as visitorCountsSql answers them.
 */
export function filteredCountsSql(query: StatsQuery, db: Sql): Sql {
  const { where: window, start, end } = ofLocalDays(query.websiteId, query.zone, query.from, query.to);
  const time = countsUtcDays(query) ? undefined : localTime(query.zone, start, end);
  const raw = countsSelect(query.stat, sql`${db}.events_local`, window, query.filters.map(filterSql), time);
  const matching = sqlJoin([sql`1`, ...valueConditions(query)], " AND ");
  return sql`SELECT groupArray(value) AS value_list, groupArray(toFloat64(n)) AS count_list FROM (
      SELECT value, sum(n) AS n FROM (${raw}) WHERE ${matching} GROUP BY value
    )`;
}

/** A node's visitors per value, as visitorCountsSql answers them. */
export interface NodeCounts {
  value_list: string[];
  count_list: number[];
}

/**
 * The page and total of the nodes' counts added up, ordered as the row statistics' SQL
 * orders: by count or by value (as ClickHouse compares strings), ties by value.
 */
export function pageOfCounts(nodes: readonly NodeCounts[], query: StatsQuery): StatsPage {
  const counts = new Map<string, number>();
  for (const { value_list: values, count_list: added } of nodes) {
    for (const [i, value] of values.entries()) counts.set(value, (counts.get(value) ?? 0) + (added[i] ?? 0));
  }
  const sign = query.sort === "asc" ? 1 : -1;
  const entries = [...counts].sort(([a, x], [b, y]) =>
    query.sortBy === "value" ? sign * byBytes(a, b) : sign * (x - y) || byBytes(a, b),
  );
  return {
    rows: entries.slice(query.offset, query.offset + query.limit).map(([value, count]) => ({ value, count })),
    total: entries.length,
  };
}

/**
 * Orders strings as their UTF-8 bytes do (ClickHouse's order): UTF-16 order, except that
 * code points above U+FFFF (surrogate pairs) come after U+E000-U+FFFF. About 3x faster than
 * comparing Buffers over the thousands of cities a range can hold.
 */
function byBytes(a: string, b: string): number {
  const rank = (unit: number) => (unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return rank(a.charCodeAt(i)) - rank(b.charCodeAt(i));
  }
  return a.length - b.length;
}

/**
 * On one node: several statistics of days under filters (DaysQuery), as filteredCountsSql
 * counts each, in one query: the row counts in one pass over the matching events, the
 * unique visitors in another, the visit statistics from one finding of the visits.
 */
export function filteredDaysSql(query: DaysQuery, db: Sql): Sql {
  const { where: window, start, end } = ofLocalDays(query.websiteId, query.zone, query.from, query.to);
  const time = countsUtcDays(query) ? undefined : localTime(query.zone, start, end);
  const events = sql`${db}.events_local`;
  const filters = query.filters.map(filterSql);
  const matching = sqlJoin([window, ...filters], " AND ");
  const of = (rows: "visits" | "rows" | "visitors") =>
    query.stats.filter((stat) => (stat.rows === "visits" ? rows === "visits" : stat.measure === rows));
  const parts: Sql[] = [];
  if (of("rows").length > 0) parts.push(statSelect(of("rows"), sql`count() AS n`, events, matching, time));
  if (of("visitors").length > 0)
    parts.push(statSelect(of("visitors"), sql`uniqExact(visitor) AS n`, events, matching, time));
  if (of("visits").length > 0) parts.push(visitSelect(of("visits"), sql`n`, events, window, time, filters));
  const arms = parts.map((part) => sql`SELECT stat, value, toUInt64(n) AS n FROM (${part})`);
  return sql`SELECT groupArray(stat) AS stat_list, groupArray(value) AS value_list, groupArray(toFloat64(n)) AS count_list
    FROM (SELECT stat, value, sum(n) AS n FROM (${sqlJoin(arms, " UNION ALL ")}) GROUP BY stat, value HAVING n > 0)`;
}

/** A node's counts of several statistics (filteredDaysSql). */
export interface NodeStatCounts extends NodeCounts {
  stat_list: number[];
}
