// Folds of local days, for websites whose time zone is not UTC (the UTC aggregates, row_stats
// and visitor_counts, count UTC days). Each node counts a closed local day of such a website
// from its own raw events with the catalog's SELECT (every statistic: rows, unique visitors
// and visits) into zone_counts_local, under a fold id and the zone it was counted in, so a
// query in that zone reads a few counts per day instead of the day's events.
//
// When is a fold current? A local day overlaps one or two UTC days, whose events (pageviews
// and custom events) row_stats_local always holds, as its view adds every insert. A fold
// records the sum of those UTC days' events when it was made (its signature, read before
// counting); counts only grow, so while the sum is unchanged no event came into the local
// day. An insert into a folded day changes the sum, and the day is counted from raw events
// at once, until it is folded again. (An insert beside it, in the other part of an overlapped
// UTC day, also makes it count raw until the next fold: exact, only slower.) Engagements are
// in no row statistic: one imported later into a folded day changes its visits, not its
// signature, and is counted after `aggregates rebuild` (see day-folds.ts).

import { randomBytes } from "node:crypto";
import { STATS } from "../../stats/catalog.js";
import { daysFrom } from "../../stats/day-rule.js";
import type { StatsQuery } from "../../stats/stats-query.js";
import { zoneRule } from "../../stats/time-zone.js";
import {
  COUNT_ROWS,
  COUNT_VISITORS,
  PAGEVIEWS_PER_DAY,
  ROW_STATS,
  statSelect,
  VISIT_STATS,
  VISITOR_STATS,
} from "./aggregate-sql.js";
import type { NodeRunner } from "./clickhouse-nodes.js";
import { localTime, ofLocalDays } from "./local-time.js";
import { type Sql, sql, sqlJoin } from "./sql-escape.js";
import { countsSelect, visitSelect } from "./visit-sql.js";

const DAY_MS = 86_400_000;
/** The statistic whose row says what a fold's signature was (no catalog statistic has id 0). */
const MARKER = 0;
/** Custom events per value: with pageviews per day, a UTC day's events in row_stats_local. */
const EVENTS_PER_VALUE = STATS.find((stat) => stat.rows === "events" && stat.measure === "rows");
if (!EVENTS_PER_VALUE) throw new Error("the catalog has no statistic counting every custom event");
/** One INSERT is one block, hence one part (see day-folds.ts). */
const ONE_PART = {
  min_insert_block_size_rows: "1000000000000",
  min_insert_block_size_bytes: "1000000000000",
};

/** A website's zone as a node knows it (setZone writes it on every node). */
export interface ZonedWebsite {
  websiteId: number;
  zone: string;
}

/** On one node: the websites whose zone is not UTC. */
export function zonedWebsitesSql(db: Sql): Sql {
  return sql`SELECT website_id, zone FROM (
      SELECT website_id, argMax(zone, version) AS zone FROM ${db}.website_zones_local GROUP BY website_id
    ) WHERE zone != 'UTC'`;
}

/** Records a website's zone on one node. */
export function setZoneSql(db: Sql, websiteId: number, zone: string, version: number): Sql {
  return sql`INSERT INTO ${db}.website_zones_local (website_id, zone, version) VALUES (${websiteId}, ${zone}, ${version})`;
}

/** On one node: the events (pageviews and custom events) of each UTC day of a website, from `from` to `to`. */
function utcTotalsSql(db: Sql, websiteId: number, from?: string, to?: string): Sql {
  const range = from && to ? sql` AND day >= toDate(${from}) AND day <= toDate(${to})` : sql``;
  return sql`SELECT toString(day) AS utc_day, toString(sum(hits)) AS events FROM ${db}.row_stats_local
    WHERE website_id = ${websiteId} AND stat IN (${PAGEVIEWS_PER_DAY.id}, ${EVENTS_PER_VALUE?.id ?? 0})${range}
    GROUP BY day`;
}

/** A UTC day's events on a node (utcTotalsSql); aliases differ from columns, which they would hide in WHERE. */
interface UtcTotal {
  utc_day: string;
  events: string;
}

/** Per local day (YYYY-MM-DD) of `zone`, the events of the UTC days it overlaps: its signature. */
function signatures(zone: string, totals: readonly UtcTotal[]): Map<string, number> {
  const rule = zoneRule(zone);
  const result = new Map<string, number>();
  for (const { utc_day: day, events } of totals) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let local = rule.dayOf(start); local <= rule.dayOf(start + DAY_MS - 1000); local++) {
      const date = new Date(local * DAY_MS).toISOString().slice(0, 10);
      result.set(date, (result.get(date) ?? 0) + Number(events));
    }
  }
  return result;
}

/**
 * On one node: the folds nothing reads any more, once `afterS` seconds have passed (a query
 * that chose one may still be reading it): those a newer fold of their day replaced, and
 * those of a zone the website left.
 */
export function unreadZoneFoldsSql(db: Sql, afterS: number): Sql {
  const markers = sql`SELECT website_id, zone, day, fold, max(folded_at) AS at FROM ${db}.zone_counts_local
    WHERE stat = ${MARKER} GROUP BY website_id, zone, day, fold`;
  const replaced = sql`SELECT fold FROM (${markers}) AS each_fold ALL INNER JOIN (
      SELECT website_id, zone, day, max(at) AS newest FROM (${markers}) GROUP BY website_id, zone, day
    ) AS latest USING (website_id, zone, day) WHERE at < newest AND newest < now() - ${afterS}`;
  const leftZone = sql`SELECT fold FROM (${markers}) AS each_fold ALL INNER JOIN (
      SELECT website_id, argMax(zone, version) AS current, max(version) AS changed
      FROM ${db}.website_zones_local GROUP BY website_id
    ) AS zones USING (website_id) WHERE zone != current AND changed < (toUInt64(now()) - ${afterS}) * 1000`;
  return sql`SELECT DISTINCT toString(fold) AS fold FROM (${replaced} UNION ALL ${leftZone})`;
}

/** A local day whose fold is missing or stale on a node, with the signature to fold it at. */
export interface StaleLocalDay extends ZonedWebsite {
  day: string;
  signature: number;
}

/**
 * On one node: the closed local days (ended by `now`, ms) of a zoned website whose latest
 * fold in its zone does not have the day's signature, newest first (as the embedded store
 * folds them: the days dashboards read most are fast again first).
 */
export async function staleLocalDays(
  node: NodeRunner,
  db: Sql,
  website: ZonedWebsite,
  now: number,
): Promise<StaleLocalDay[]> {
  const { websiteId, zone } = website;
  const totals = await node.query<UtcTotal>(utcTotalsSql(db, websiteId));
  const folds = await node.query<{ local_day: string; count: string }>(
    sql`SELECT DISTINCT toString(day) AS local_day, toString(counted) AS count FROM ${db}.zone_counts_local
      WHERE website_id = ${websiteId} AND zone = ${zone} AND stat = ${MARKER}`,
  );
  const current = new Set(folds.map((fold) => `${fold.local_day} ${fold.count}`));
  const rule = zoneRule(zone);
  return [...signatures(zone, totals)]
    .filter(([day, signature]) => !current.has(`${day} ${signature}`))
    .filter(([day]) => rule.dayStart(Date.parse(`${day}T00:00:00Z`) / DAY_MS + 1) <= now)
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([day, signature]) => ({ websiteId, zone, day, signature }));
}

/**
 * Folds one local day on one node: the row statistics, the unique-visitor ones, the visit
 * ones, then the marker with the signature read before counting. Each INSERT is one part,
 * and the marker's comes last, so a query that sees the marker sees the whole fold.
 */
export async function foldLocalDay(node: NodeRunner, db: Sql, stale: StaleLocalDay): Promise<void> {
  const { websiteId, zone, day, signature } = stale;
  const { where, start, end } = ofLocalDays(websiteId, zone, day, day);
  const time = localTime(zone, start, end);
  const fold = randomBytes(8).readBigUInt64BE();
  const events = sql`${db}.events_local`;
  const into = sql`INSERT INTO ${db}.zone_counts_local (website_id, zone, stat, day, value, counted, fold, folded_at)`;
  await node.command(
    sql`${into} SELECT website_id, ${zone}, stat, local_day, value, hits, ${fold}, now()
      FROM (${statSelect(ROW_STATS, COUNT_ROWS, events, where, time)})`,
    ONE_PART,
  );
  await node.command(
    sql`${into} SELECT website_id, ${zone}, stat, local_day, value, visitors, ${fold}, now()
      FROM (${statSelect(VISITOR_STATS, COUNT_VISITORS, events, where, time)})`,
    ONE_PART,
  );
  await node.command(
    sql`${into} SELECT website_id, ${zone}, stat, local_day, value, visits, ${fold}, now()
      FROM (${visitSelect(VISIT_STATS, sql`visits`, events, where, time)})`,
    ONE_PART,
  );
  await node.command(
    sql`${into} VALUES (${websiteId}, ${zone}, ${MARKER}, toDate(${day}), '', ${signature}, ${fold}, now())`,
  );
}

/**
 * On one node: the statistic's counts per value over the query's local days, each day from
 * a fold with the day's signature, the others from raw events (valueConditions applied to
 * both), as visitorCountsSql answers them; null when the range has no events here.
 */
export async function zoneCountsSql(
  node: NodeRunner,
  db: Sql,
  query: StatsQuery,
  valueConditions: readonly Sql[],
): Promise<Sql | null> {
  const { websiteId, zone, from, to } = query;
  const { firstUtc, lastUtc } = ofLocalDays(websiteId, zone, from, to);
  const [totals, folds] = await Promise.all([
    node.query<UtcTotal>(utcTotalsSql(db, websiteId, firstUtc, lastUtc)),
    node.query<{ local_day: string; count: string; fold: string }>(
      sql`SELECT toString(day) AS local_day, toString(counted) AS count, toString(argMax(fold, folded_at)) AS fold
        FROM ${db}.zone_counts_local
        WHERE website_id = ${websiteId} AND zone = ${zone} AND stat = ${MARKER}
          AND day >= toDate(${from}) AND day <= toDate(${to})
        GROUP BY day, counted`,
    ),
  ]);
  const foldOf = new Map(folds.map((fold) => [`${fold.local_day} ${fold.count}`, fold.fold]));
  const signature = signatures(zone, totals);
  const chosen: bigint[] = [];
  const open: string[] = [];
  for (const day of daysFrom(from, to)) {
    const events = signature.get(day);
    if (!events) continue;
    const fold = foldOf.get(`${day} ${events}`);
    if (fold) chosen.push(BigInt(fold));
    else open.push(day);
  }
  const parts: Sql[] = [];
  const matching = (conditions: Sql[]) => sqlJoin([...conditions, ...valueConditions], " AND ");
  if (chosen.length > 0) {
    parts.push(
      sql`SELECT value, counted AS n FROM ${db}.zone_counts_local WHERE ${matching([
        sql`website_id = ${websiteId} AND zone = ${zone} AND stat = ${query.stat.id}`,
        sql`day >= toDate(${from}) AND day <= toDate(${to})`,
        sql`fold IN (${sqlJoin(
          chosen.map((fold) => sql`${fold}`),
          ", ",
        )})`,
      ])}`,
    );
  }
  if (open.length > 0) {
    const span = ofLocalDays(websiteId, zone, open[0] as string, open.at(-1) as string);
    const time = localTime(zone, span.start, span.end);
    const days = sql`${time.day} IN (${sqlJoin(
      open.map((day) => sql`toDate(${day})`),
      ", ",
    )})`;
    const raw = countsSelect(query.stat, sql`${db}.events_local`, sql`${span.where} AND ${days}`, [], time);
    parts.push(sql`SELECT value, n FROM (${raw}) WHERE ${matching([sql`1`])}`);
  }
  if (parts.length === 0) return null;
  return sql`SELECT groupArray(value) AS value_list, groupArray(toFloat64(n)) AS count_list FROM (
      SELECT value, sum(n) AS n FROM (${sqlJoin(parts, " UNION ALL ")}) GROUP BY value
    )`;
}
