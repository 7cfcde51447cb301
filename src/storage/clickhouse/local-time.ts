// ClickHouse SQL of local time in a website's zone: the stored UTC instant `ts` (a
// DateTime('UTC')) plus the offset in force, from the offsets stats/time-zone.ts gives for
// the instants counted. ClickHouse's own tz data (18.16's is from 2018) is never used, so
// every engine counts the same local days.

import { zoneRule } from "../../stats/time-zone.js";
import type { TimeSql } from "./aggregate-sql.js";
import { type Sql, sql, sqlJoin } from "./sql-escape.js";

/**
 * The offset (seconds) in force at `instant` (a DateTime expression), for instants between
 * `from` and `to` (ms) in `zone`.
 */
function offsetSql(zone: string, from: number, to: number, instant: Sql): Sql {
  const [first, ...changes] = zoneRule(zone).segments(from, to);
  if (changes.length === 0) return sql`${first?.offset ?? 0}`;
  const before = [first, ...changes];
  const arms = changes.flatMap((change, i) => [
    sql`${instant} < toDateTime(${change.start / 1000})`,
    sql`${before[i]?.offset ?? 0}`,
  ]);
  return sql`multiIf(${sqlJoin(arms, ", ")}, ${changes.at(-1)?.offset ?? 0})`;
}

/** The local day and hour of events between the instants `from` and `to` (ms) in `zone`. */
export function localTime(zone: string, from: number, to: number): TimeSql {
  // Shifted by the offset, a DateTime's UTC date and hour are the local ones.
  const local = (instant: Sql) => sql`(${instant} + ${offsetSql(zone, from, to, instant)})`;
  const hourAt = (instant: Sql) => sql`formatDateTime(${local(instant)}, '%H', 'UTC')`;
  return { day: sql`toDate(${local(sql`ts`)})`, hour: hourAt(sql`ts`), hourAt };
}

/** A website's events of the local days `from` to `to` of `zone`, and those days' instants and UTC dates. */
export interface LocalDays {
  /** The UTC days (partitions) and the primary key's range of ts: only those granules are read. */
  where: Sql;
  start: number;
  end: number;
  firstUtc: string;
  lastUtc: string;
}

export function ofLocalDays(websiteId: number, zone: string, from: string, to: string): LocalDays {
  const { start, end } = zoneRule(zone).rangeOf(from, to);
  const firstUtc = new Date(start).toISOString().slice(0, 10);
  const lastUtc = new Date(end - 1000).toISOString().slice(0, 10);
  return {
    where: sql`website_id = ${websiteId} AND day >= toDate(${firstUtc}) AND day <= toDate(${lastUtc})
      AND ts >= toDateTime(${start / 1000}) AND ts < toDateTime(${end / 1000})`,
    start,
    end,
    firstUtc,
    lastUtc,
  };
}
