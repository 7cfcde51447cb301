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
 * What a visit's row must hold beyond its start for the statistics asked (computing only
 * that makes a query of visits alone a fifth cheaper), and the filters (conditions on
 * an event) a visit must have a pageview or custom event for.
 */
interface VisitNeeds {
  seconds: boolean;
  pageviews: boolean;
  exitPage: boolean;
  filters: readonly Sql[];
}

function needsOf(stats: readonly StatDefinition[], filters: readonly Sql[]): VisitNeeds {
  const measures = new Set<Measure>(stats.map((stat) => stat.measure));
  return {
    seconds: measures.has("seconds") || measures.has("bounces"),
    pageviews: measures.has("pageviews") || measures.has("bounces"),
    exitPage: stats.some((stat) => stat.dimension === "exit_page"),
    filters,
  };
}

/** One visitor's events of a day (`dayKey` its day column) as arrays of the columns needed. */
function groupsSql(events: Sql, where: Sql | undefined, time: TimeSql, dayKey: Sql, needs: VisitNeeds): Sql {
  const gathered = [sql`groupArray(toUInt32(ts)) AS times`, sql`groupArray(kind) AS kinds`];
  const conditions = [sql`kind IN (0, 1, 2)`, ...(where ? [where] : [])];
  if (needs.exitPage) gathered.push(sql`groupArray(page) AS pages`);
  if (needs.filters.length > 0) {
    const matching = sqlJoin(
      [sql`kind IN (0, 1)`, ...needs.filters.map((filter) => sql`(${filter})`)],
      " AND ",
    );
    gathered.push(sql`groupArray(toUInt8(${matching})) AS matches`);
    // Only visitors with a matching event can have a matching visit: the others' events
    // are dropped before grouping (with a narrow filter, most of them: 3x faster).
    conditions.push(
      sql`visitor IN (SELECT visitor FROM ${events} WHERE ${sqlJoin([...conditions.slice(1), matching], " AND ")})`,
    );
  }
  // Local days are named local_day, as statSelect names them (see there why).
  const day = time === UTC_TIME ? sql`day` : sql`${time.day} AS local_day`;
  return sql`SELECT website_id, ${day}, ${sqlJoin(gathered, ", ")}
    FROM ${events} WHERE ${sqlJoin(conditions, " AND ")}
    GROUP BY website_id, visitor, ${dayKey}`;
}

/**
 * One row per visit of the events `where` selects: website_id, the day column, visit_start,
 * and as `needs` says visit_seconds, visit_pageviews, exit_page; with filters, only the
 * visits with a pageview or custom event every filter holds for.
 */
function visitsSql(events: Sql, where: Sql | undefined, time: TimeSql, dayKey: Sql, needs: VisitNeeds): Sql {
  const filtered = needs.filters.length > 0;
  // Whether each event's visit is needed, or the starts alone (visits per day or hour).
  const owned = needs.seconds || needs.pageviews || needs.exitPage || filtered;
  const columns = [
    ...(owned ? [sql`times`, sql`kinds`] : []),
    ...(needs.exitPage ? [sql`pages`] : []),
    ...(filtered ? [sql`matches`] : []),
    // Each group's visit starts: each pageview second more than the gap after the previous
    // one (the first, after 0); and each event's visit: how many starts are at or before it.
    sql`arraySort(arrayFilter((t, k) -> k = 0, times, kinds)) AS views`,
    sql`arrayFilter((t, before) -> t - before > ${VISIT_GAP_SECONDS}, views, arrayPopBack(arrayPushFront(views, 0))) AS starts`,
    ...(owned ? [sql`arrayMap(t -> arrayCount(s -> s <= t, starts), times) AS owners`] : []),
  ];
  const split = sql`SELECT website_id, ${dayKey}, ${sqlJoin(columns, ", ")}
    FROM (${groupsSql(events, where, time, dayKey, needs)})`;
  const perVisit = [sql`visit_start`];
  if (needs.seconds)
    perVisit.push(
      sql`arrayReduce('max', arrayFilter((t, o) -> o = visit, times, owners)) - visit_start AS visit_seconds`,
    );
  if (needs.pageviews)
    perVisit.push(sql`arrayCount((k, o) -> k = 0 AND o = visit, kinds, owners) AS visit_pageviews`);
  // The visit's pageviews' seconds and pages, and its last second, for its page (below).
  if (needs.exitPage)
    perVisit.push(
      sql`arrayFilter((t, k, o) -> k = 0 AND o = visit, times, kinds, owners) AS view_times`,
      sql`arrayFilter((p, k, o) -> k = 0 AND o = visit, pages, kinds, owners) AS view_pages`,
      sql`arrayReduce('max', arrayFilter((t, k, o) -> k = 0 AND o = visit, times, kinds, owners)) AS last_view`,
    );
  const visit = owned ? sql`, arrayEnumerate(starts) AS visit` : sql``;
  const matched = filtered ? sql` WHERE arrayExists((m, o) -> m = 1 AND o = visit, matches, owners)` : sql``;
  const visits = sql`SELECT website_id, ${dayKey}, ${sqlJoin(perVisit, ", ")}
    FROM (${split}) ARRAY JOIN starts AS visit_start${visit}${matched}`;
  if (!needs.exitPage) return visits;
  // The page of the visit's last pageview; of one second's, the greatest page. (In a query
  // of its own: 18.16 crashed on argMax over (second, page) tuples at scale, a 2M-event
  // import into the 2-shard cluster brought a node down in its first fold, and misread
  // last_view as an alias of the same SELECT.)
  const kept = [sql`visit_start`];
  if (needs.seconds) kept.push(sql`visit_seconds`);
  if (needs.pageviews) kept.push(sql`visit_pageviews`);
  // last_view goes in as an array argument, not captured: 18.16 drops a subquery's column
  // that only a lambda reads.
  return sql`SELECT website_id, ${dayKey}, ${sqlJoin(kept, ", ")},
      arrayReverseSort(arrayFilter((p, t, last) -> t = last, view_pages, view_times,
        arrayResize([last_view], length(view_times), last_view)))[1] AS exit_page
    FROM (${visits})`;
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
  const visits = visitsSql(events, where, time, dayKey, needsOf(stats, filters));
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
