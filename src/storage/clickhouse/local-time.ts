// ClickHouse SQL of local time in a website's zone: the stored UTC instant `ts` (a
// DateTime('UTC')) plus the offset in force, from the offsets stats/time-zone.ts gives for
// the instants counted. ClickHouse's own tz data (18.16's is from 2018) is never used, so
// every engine counts the same local days.

import { zoneRule } from "../../stats/time-zone.js";
import type { TimeSql } from "./aggregate-sql.js";
import { type Sql, sql, sqlJoin } from "./sql-escape.js";

/** The offset (seconds) in force at `ts`, for instants between `from` and `to` (ms) in `zone`. */
function offsetSql(zone: string, from: number, to: number): Sql {
  const [first, ...changes] = zoneRule(zone).segments(from, to);
  if (changes.length === 0) return sql`${first?.offset ?? 0}`;
  const before = [first, ...changes];
  const arms = changes.flatMap((change, i) => [
    sql`ts < toDateTime(${change.start / 1000})`,
    sql`${before[i]?.offset ?? 0}`,
  ]);
  return sql`multiIf(${sqlJoin(arms, ", ")}, ${changes.at(-1)?.offset ?? 0})`;
}

/** The local day and hour of events between the instants `from` and `to` (ms) in `zone`. */
export function localTime(zone: string, from: number, to: number): TimeSql {
  // Shifted by the offset, a DateTime('UTC')'s UTC date and hour are the local ones.
  const local = sql`(ts + ${offsetSql(zone, from, to)})`;
  return { day: sql`toDate(${local})`, hour: sql`formatDateTime(${local}, '%H', 'UTC')` };
}

/** The UTC dates (YYYY-MM-DD) the instants [start, end) (ms) fall on, first and last. */
export function utcDaysOf(start: number, end: number): [string, string] {
  return [new Date(start).toISOString().slice(0, 10), new Date(end - 1000).toISOString().slice(0, 10)];
}
