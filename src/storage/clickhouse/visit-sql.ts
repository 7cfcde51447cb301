// ClickHouse SQL of the visit statistics (catalog rows "visits"): the one definition that
// folds of closed days, open days, filtered queries, zone folds and rebuilds all run.
// 18.16 has no window functions, so a visitor's events of one (local) day are gathered into
// arrays, of the columns needed only; the visits are found with array functions (a visit
// starts at the group's first pageview and at each one more than VISIT_GAP_SECONDS after
// the one before; an event is in the last visit started at or before its second) and
// expanded with ARRAY JOIN, one row per visit, then per statistic. Events are sharded by
// (website, visitor), so each node counts its own visitors' visits and the nodes add up.

import {
  BOUNCE_SECONDS,
  type Dimension,
  type Measure,
  type StatDefinition,
  VISIT_GAP_SECONDS,
} from "../../stats/catalog.js";
import { statSelect, type TimeSql, UTC_TIME } from "./aggregate-sql.js";
import { type Sql, sql, sqlJoin } from "./sql-escape.js";

/** Of a visit's row (visitsSql): its statistic value. */
function visitValue(dimension: Dimension, time: TimeSql, dayKey: Sql): Sql {
  if (dimension === "day") return sql`toString(${dayKey})`;
  if (dimension === "hour") return time.hourAt(sql`toDateTime(visit_start)`);
  if (dimension === "exit_page") return sql`exit_page`;
  throw new Error(`a visit has no ${dimension}`);
}

/** Of a visit's row: what it adds to a statistic of `measure`. */
function visitCount(measure: Measure): Sql {
  if (measure === "rows") return sql`toUInt64(1)`;
  if (measure === "bounces") return sql`toUInt64(visit_pageviews = 1 AND visit_seconds < ${BOUNCE_SECONDS})`;
  if (measure === "seconds") return sql`toUInt64(visit_seconds)`;
  if (measure === "pageviews") return sql`toUInt64(visit_pageviews)`;
  throw new Error(`visits are not counted in ${measure}`);
}

/**
 * One row per visit of the events `where` selects (website_id, the day column, visit_start,
 * visit_seconds, visit_pageviews, and exit_page when `exitPage`); with `filters`, only the
 * visits with a pageview or custom event every filter holds for.
 */
function visitsSql(
  events: Sql,
  where: Sql | undefined,
  time: TimeSql,
  exitPage: boolean,
  filters: readonly Sql[],
): Sql {
  const local = time !== UTC_TIME;
  // Local days are named local_day, as statSelect names them (see there why).
  const dayKey = local ? sql`local_day` : sql`day`;
  const gathered = [sql`groupArray(toUInt32(ts)) AS times`, sql`groupArray(kind) AS kinds`];
  if (exitPage) gathered.push(sql`groupArray(page) AS pages`);
  if (filters.length > 0)
    gathered.push(
      sql`groupArray(toUInt8(kind IN (0, 1) AND ${sqlJoin(
        filters.map((f) => sql`(${f})`),
        " AND ",
      )})) AS matches`,
    );
  // A visitor's events of a day: pageviews, custom events and engagements.
  const groups = sql`SELECT website_id, ${local ? sql`${time.day} AS local_day` : sql`day`}, ${sqlJoin(gathered, ", ")}
    FROM ${events} WHERE kind IN (0, 1, 2)${where ? sql` AND ${where}` : sql``}
    GROUP BY website_id, visitor, ${dayKey}`;
  // Each group's visit starts (each pageview second more than the gap after the previous
  // one; the first after 0), and each event's visit: how many starts are at or before it.
  const split = sql`SELECT website_id, ${dayKey}, times, kinds${exitPage ? sql`, pages` : sql``}${
    filters.length > 0 ? sql`, matches` : sql``
  },
      arraySort(arrayFilter((t, k) -> k = 0, times, kinds)) AS views,
      arrayFilter((t, before) -> t - before > ${VISIT_GAP_SECONDS}, views, arrayPopBack(arrayPushFront(views, 0))) AS starts,
      arrayMap(t -> arrayCount(s -> s <= t, starts), times) AS owners
    FROM (${groups})`;
  const perVisit = [
    sql`arrayReduce('max', arrayFilter((t, o) -> o = visit, times, owners)) - visit_start AS visit_seconds`,
    sql`arrayCount((k, o) -> k = 0 AND o = visit, kinds, owners) AS visit_pageviews`,
  ];
  // The page of the visit's last pageview; of one second's, the greatest page.
  if (exitPage)
    perVisit.push(
      sql`arrayReduce('argMax', pages, arrayMap((t, p, k, o) -> (k = 0 AND o = visit, t, p), times, pages, kinds, owners)) AS exit_page`,
    );
  const matched =
    filters.length > 0 ? sql` WHERE arrayExists((m, o) -> m = 1 AND o = visit, matches, owners)` : sql``;
  return sql`SELECT website_id, ${dayKey}, visit_start, ${sqlJoin(perVisit, ", ")}
    FROM (${split}) ARRAY JOIN starts AS visit_start, arrayEnumerate(starts) AS visit${matched}`;
}

/**
 * Rows (website_id, stat, day, value, then the sum named `counted`) of the visit statistics
 * `stats`, from the visits of the events `where` selects (whole local days: a visit never
 * crosses one); days and hours as `time` reads them; with `filters` (conditions on an
 * event), only the visits with a pageview or custom event every filter holds for. A visit
 * adding 0 (no bounce) makes no row, so every row's sum is above 0.
 */
export function visitSelect(
  stats: readonly StatDefinition[],
  counted: Sql,
  events: Sql,
  where?: Sql,
  time: TimeSql = UTC_TIME,
  filters: readonly Sql[] = [],
): Sql {
  const dayKey = time === UTC_TIME ? sql`day` : sql`local_day`;
  const visits = visitsSql(
    events,
    where,
    time,
    stats.some((stat) => stat.dimension === "exit_page"),
    filters,
  );
  const [only] = stats;
  if (stats.length === 1 && only) {
    const count = visitCount(only.measure);
    return sql`SELECT website_id, toUInt8(${only.id}) AS stat, ${dayKey}, ${visitValue(only.dimension, time, dayKey)} AS value,
        sum(${count}) AS ${counted}
      FROM (${visits}) WHERE ${count} > 0
      GROUP BY website_id, stat, ${dayKey}, value`;
  }
  const tuples = stats.map(
    (stat) =>
      sql`(toUInt8(${stat.id}), ${visitValue(stat.dimension, time, dayKey)}, ${visitCount(stat.measure)})`,
  );
  return sql`SELECT website_id, tupleElement(s, 1) AS stat, ${dayKey}, tupleElement(s, 2) AS value, sum(tupleElement(s, 3)) AS ${counted}
    FROM (${visits})
    ARRAY JOIN arrayFilter(x -> tupleElement(x, 3) > 0, [${sqlJoin(tuples, ", ")}]) AS s
    GROUP BY website_id, stat, ${dayKey}, value`;
}

/**
 * One statistic's rows (website_id, stat, day or local_day, value, n) from the raw events
 * `where` selects that every filter (a condition on an event) holds for; of visits, from
 * the visits with such an event.
 */
export function countsSelect(
  stat: StatDefinition,
  events: Sql,
  where: Sql,
  filters: readonly Sql[] = [],
  time: TimeSql = UTC_TIME,
): Sql {
  if (stat.rows === "visits") return visitSelect([stat], sql`n`, events, where, time, filters);
  const counted = stat.measure === "visitors" ? sql`uniqExact(visitor) AS n` : sql`count() AS n`;
  return statSelect([stat], counted, events, sqlJoin([where, ...filters], " AND "), time);
}
