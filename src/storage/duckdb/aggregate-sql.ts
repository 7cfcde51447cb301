// DuckDB SQL for the embedded store's statistics, all generated from the catalog's one
// definition of each statistic (statCountsSql): the fold of a settled day into daily_stats,
// today's counts kept there as of the upkeep's last round (keptDayStatements), and a query
// summing the folded and kept days, with what changed since, and the other open days
// counted from their raw events.
// Days and hours are local to the website's zone: the SQL adds the zone's offsets
// (stats/time-zone.ts) to the stored UTC instants, so DuckDB needs no time zone data.

import { BIGINT, type DuckDBType, type DuckDBValue, LIST, listValue, VARCHAR } from "@duckdb/node-api";
import {
  BOUNCE_SECONDS,
  type Dimension,
  type RowFilter,
  STATS,
  type StatDefinition,
  VISIT_GAP_SECONDS,
} from "../../stats/catalog.js";
import { comparesWhole, isNegated, type StatsFilter } from "../../stats/stats-filter.js";
import type { DaysQuery, StatsQuery } from "../../stats/stats-query.js";
import { type OffsetSegment, zoneRule } from "../../stats/time-zone.js";
import { NUMBERED_TEXT } from "./event-rows.js";

const ROW_FILTERS: Record<Exclude<RowFilter, "visits">, string> = {
  pageviews: "e.kind = 0",
  entrances: "e.kind = 0 AND e.is_visit",
  events: "e.kind = 1",
};

/**
 * The visitor's attributes a visit of day_visits holds (a place for its city, country and
 * continent), for the filters on them (visitorFilter): each the value of every event of the
 * visitor's day, or NULL and the visit `mixed` when the day holds more than one.
 */
const VISITOR_COLUMNS = ["browser", "os", "device", "resolution", "language", "place"] as const;

/** The dimensions of the visitor's attributes: VISITOR_COLUMNS, a place by its names. */
const VISITOR_DIMENSIONS: readonly string[] = [...VISITOR_COLUMNS, "country", "city", "continent"];

/**
 * An instant (ms) as a literal of the events' ts type (stored instants are whole seconds):
 * compared with a TIMESTAMP instead, DuckDB casts ts for every row, and cannot skip the row
 * groups outside the range by their min and max.
 */
export function instantSql(ms: number): string {
  return `CAST('${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}' AS TIMESTAMP_S)`;
}

/**
 * The local time of the event `e` under `segments` (the zone's offsets over the instants
 * counted) in whole seconds since 1970 (a BIGINT: `//` divides it whole), UTC plus the offset in force.
 */
function localSecondsSql(segments: readonly OffsetSegment[]): string {
  const [first, ...changes] = segments;
  if (!first) throw new Error("no offsets");
  if (changes.length === 0) return `(CAST(epoch(e.ts) AS BIGINT) + ${first.offset})`;
  const before = [first, ...changes].slice(0, -1);
  const cases = changes.map(
    (change, i) => `WHEN e.ts < ${instantSql(change.start)} THEN ${before[i]?.offset}`,
  );
  return `(CAST(epoch(e.ts) AS BIGINT) + CASE ${cases.join(" ")} ELSE ${changes.at(-1)?.offset} END)`;
}

/**
 * How a count reads the time of events: the expression of an event's day to group by, how
 * a grouped day becomes a DATE and how a day is written to compare with it, and the hour.
 */
export interface TimeSql {
  day: string;
  date(day: string): string;
  literal(day: string): string;
  /** A DATE column (a folded visit's day) as `day` groups it. */
  fromDate(column: string): string;
  hour: string;
}

const EPOCH_DATE = "CAST('1970-01-01' AS DATE)";

/**
 * The days and hours of events between the instants `from` and `to` (ms) in `zone`. In
 * UTC, the stored instant's own; elsewhere whole numbers from the local seconds, turned into
 * dates only once grouped (a per-event timestamp sum and date cast cost 2x per filtered
 * statistic at 10M events).
 */
export function timeSql(zone: string, from: number, to: number): TimeSql {
  const rule = zoneRule(zone);
  if (rule.isUtc) {
    return {
      day: "CAST(e.ts AS DATE)",
      date: (day) => day,
      literal: (day) => `CAST('${day}' AS DATE)`,
      fromDate: (column) => column,
      hour: "hour(e.ts)",
    };
  }
  const seconds = localSecondsSql(rule.segments(from, to));
  return {
    day: `CAST(${seconds} // 86400 AS INTEGER)`,
    date: (day) => `${EPOCH_DATE} + ${day}`,
    literal: (day) => String(Date.parse(`${day}T00:00:00Z`) / 86_400_000),
    fromDate: (column) => `CAST(${column} - ${EPOCH_DATE} AS INTEGER)`,
    hour: `CAST(${seconds} // 3600 AS BIGINT) % 24`,
  };
}

/**
 * Some of the visitors of a statement's events: those whose number leaves `part` when
 * divided by `parts`. A visit is one visitor's, and a visitor's events are all in one
 * slice, so the counts of a day's slices add up to the day's, unique visitors included. The
 * window functions that find visits need memory in proportion to the events they read: a
 * day too large for one statement (a fold, or an open day counted from its events) is
 * read a slice at a time.
 */
export interface VisitorSlice {
  parts: number;
  part: number;
}

/** The condition on events `e` that keeps the visitors of `slice`. */
function sliceSql({ parts, part }: VisitorSlice): string {
  return `e.visitor % ${parts} = ${part}`;
}

/**
 * The events `e` of website $1 between the instants `start` and `end` (ms), of the visitors
 * of `slice` (every visitor's without one).
 */
export function windowEventsSql(start: number, end: number, slice?: VisitorSlice): string {
  const events = `e.website_id = CAST($1 AS INTEGER) AND e.ts >= ${instantSql(start)} AND e.ts < ${instantSql(end)}`;
  return slice ? `${events} AND ${sliceSql(slice)}` : events;
}

/**
 * The events of each open day of a window (`openDays`, YYYY-MM-DD, ascending) of website $1
 * in `zone`, as rows `day` (YYYY-MM-DD) and `n`: what a statement finding the day's visits
 * would read (the store reads a larger day a VisitorSlice at a time).
 */
export function openDayEventsSql(zone: string, openDays: readonly string[]): string {
  const { start, end } = zoneRule(zone).rangeOf(openDays[0] as string, openDays.at(-1) as string);
  const time = timeSql(zone, start, end);
  return `SELECT strftime(CAST(${time.date("d")} AS DATE), '%Y-%m-%d') AS day, n
    FROM (SELECT ${time.day} AS d, count(*) AS n FROM events e WHERE ${openEventsSql(zone, time, openDays)} GROUP BY d)`;
}

/**
 * What part of a query's window a statement reads: one slice of its visitors (none: all of
 * them), and the open days whose counts and visits are kept (in daily_stats and day_visits),
 * read as folded days with what changed since (`keptDays`: keptDayStatements).
 */
type Scope = {
  visitors?: VisitorSlice | undefined;
  keptDays?: readonly string[] | undefined;
};

/** The time of the events of one local day, whose day is a constant. */
function oneDayTime(zone: string, day: string, start: number, end: number): TimeSql {
  const time = timeSql(zone, start, end);
  return { ...time, day: `CAST('${day}' AS DATE)`, date: (column) => column, fromDate: (column) => column };
}

/**
 * One statistic's counts per website, day and value over the events `where` selects: columns
 * website_id, stat, day, value, field, number, count. The events are grouped by what they
 * store, and only the groups are formatted: a dimension held as a number (NUMBERED_TEXT) by
 * that number (`value` NULL, named through text_values by namedSql), a place's city,
 * country or continent by a number per name (placeKeysSql), named through place_names once
 * grouped, the hour by its number, the day by the group's day. `filters` (conditions on `e`)
 * keep the events they hold for, or for a visit statistic the visits with such an event.
 * Options (CountOptions): `perDay`, whether rows are counted per day.
 */
function statCountsSql(
  stat: StatDefinition,
  where: string,
  time: TimeSql,
  { perDay = true, filters = null }: CountOptions = {},
): string {
  if (stat.rows === "visits") return visitCountsSql(stat, where, time, filters);
  if (filters !== null) where = `${where} AND ${filters}`;
  // Unique visitors are counted per day; rows summed over days need no day: a filtered
  // query sums its window's days at once (at 10M events, page filtered by browser!=Chrome
  // took 271 ms on one core against 318 ms with a group per day).
  const day = perDay || stat.measure === "visitors" || stat.dimension === "day" ? time.day : "NULL";
  const keyed = statKeySql(stat, time, false);
  const count = stat.measure === "rows" ? "count(*)" : "count(DISTINCT e.visitor)";
  // The grouped day as a DATE (a local day is grouped as a whole number).
  const date = day === "NULL" ? "CAST(NULL AS DATE)" : `CAST(${time.date("day")} AS DATE)`;
  return keyedCountsSql(
    stat,
    keyed,
    `SELECT e.website_id, ${day} AS day, ${keyed.key} AS k, ${count} AS count
      FROM events e WHERE ${ROW_FILTERS[stat.rows]} AND ${where} GROUP BY ALL`,
    date,
  );
}

/**
 * statCountsSql's rows from the counts `grouped` (columns website_id, day, `k` a key of
 * `keyed`, count), their day as the DATE `date`.
 */
function keyedCountsSql(
  stat: StatDefinition,
  { value, field, naming }: ReturnType<typeof statKeySql>,
  grouped: string,
  date: string,
): string {
  return `SELECT website_id, CAST(${stat.id} AS UTINYINT) AS stat, ${date} AS day, CAST(${value("k", date)} AS VARCHAR) AS value,
      CAST(${field >= 0 ? field : "NULL"} AS UTINYINT) AS field, CAST(${field >= 0 ? "k" : "NULL"} AS UINTEGER) AS number, count
    FROM (${grouped})${naming}`;
}

/**
 * What statCountsSql groups a statistic's events by (`key`, over events `e`), and the value
 * it names a group with, given the grouped key and day (`value`): a numbered field's number
 * (`field` its index in NUMBERED_TEXT, named later by namedSql; -1 for the others), the
 * hour, the day, or a place's name: by a number per name, or by the name itself when the
 * events `e` hold their places' names (`namedPlaces`: keptChangesSql's few changed events,
 * whose places are named before they are grouped, which spares numbering every place by
 * name: with today open and kept at 10M events, the country's changes took 23-24 ms
 * against 27-32).
 */
function statKeySql(
  stat: StatDefinition,
  time: TimeSql,
  namedPlaces: boolean,
): {
  key: string;
  value: (key: string, date: string) => string;
  field: number;
  naming: string;
} {
  const dimension: Dimension = stat.dimension;
  const field = (NUMBERED_TEXT as readonly string[]).indexOf(dimension);
  if (dimension === "day")
    return { key: "NULL", value: (_, date) => `strftime(${date}, '%Y-%m-%d')`, field, naming: "" };
  if (dimension === "hour")
    return {
      key: time.hour,
      value: (k) => `lpad(CAST(${k} AS VARCHAR), 2, '0')`,
      field,
      naming: "",
    };
  if (field < 0 && namedPlaces)
    return { key: `coalesce(e.${dimension}, '')`, value: (k) => k, field, naming: "" };
  if (field < 0)
    return {
      key: `coalesce((${placeKeyListSql(dimension)})[e.place], 0)`,
      value: () => `coalesce(n.${dimension}, '')`,
      field,
      naming: " LEFT JOIN place_names n ON n.id = k",
    };
  // a column of `events`, named by the catalog only
  return { key: `e.${dimension}`, value: () => "NULL", field, naming: "" };
}

/** How statCountsSql counts. */
interface CountOptions {
  perDay?: boolean;
  filters?: string | null;
}

/**
 * Each place's number for one of its names (`k`): the least place number with that city,
 * country or continent, and 0 for the empty name (no city, or a place not in place_names).
 * Events are counted by these numbers and only the groups are named: grouping by the names
 * themselves took a third longer (at 10M events on one core, filtered by page==/pricing, the
 * store's country 313-406 ms against 237-238, city 356-467 against 264-283). A city is its
 * place's whole `geo` (place_names), which no other place has (places number each once), so
 * its number is the place's own, read without place_names' join to geo_names or a window
 * over it: 10 ms less of the city's 50 with today open at 10M events.
 */
function placeKeysSql(dimension: Dimension): string {
  if (dimension === "city")
    return "SELECT id, CASE WHEN geo = '' OR geo LIKE '%:' THEN 0 ELSE id END AS k FROM places";
  return `SELECT id, CASE WHEN ${dimension} = '' THEN 0 ELSE min(id) OVER (PARTITION BY ${dimension}) END AS k
    FROM place_names`;
}

/**
 * placeKeysSql's numbers as one list, place n's at position n (0 for a number no place
 * has; an event's place 0 or NULL reads NULL), which statCountsSql reads an event's number
 * from. Joined to the events instead, DuckDB took the matching events' side for its hash
 * table when their filters looked selective: at 10M events, the distinct (day, country,
 * visitor) of the 562,773 pageviews of /pricing in 125-131 ms that way against 82 ms from
 * the list, on one core.
 */
function placeKeyListSql(dimension: Dimension): string {
  return `SELECT list(coalesce(p.k, 0) ORDER BY r.i)
    FROM range(1, (SELECT coalesce(max(id), 0) + 1 FROM places)) r(i) LEFT JOIN (${placeKeysSql(dimension)}) p ON p.id = r.i`;
}

/** The hours of day (bit n for hour n) with a pageview, of the events grouped. */
const HOURS_MASK = "bit_or(CASE WHEN kind = 0 THEN CAST(1 AS UINTEGER) << CAST(hour AS INTEGER) END)";

/** What a visit statistic adds up over visits `v` (catalog Measure). */
const VISIT_MEASURES: Record<StatDefinition["measure"], string> = {
  rows: "count(*)",
  bounces: `count(*) FILTER (v.pageviews = 1 AND v.finish - v.start < ${BOUNCE_SECONDS})`,
  seconds: "sum(v.finish - v.start)",
  pageviews: "sum(v.pageviews)",
  visitors: "NULL", // not a measure of visits
};

/**
 * The visits of the events `where` selects, one row each (catalog.ts has the definition):
 * columns website_id, day (as `time` groups it), visitor, start and finish (seconds since
 * 1970), pageviews, hour (of its start), exit_page (the page's number; NULL unless `exits`).
 * Each visitor's events of a local day in time order, a visit starting at a pageview more
 * than VISIT_GAP_SECONDS after the previous pageview (or the day's first), every event in
 * the last visit started at or before its second (peers of a second go together: RANGE
 * frames), and none before the first. `matched`, when given, keeps the visits with a
 * pageview or custom event it holds for.
 */
function visitRowsSql(
  where: string,
  time: TimeSql,
  exits: boolean,
  matched: string | null = null,
  attributes = false,
  events = "events",
): string {
  const pageField = NUMBERED_TEXT.indexOf("page");
  // The exit page of pageviews of one second is the greatest page by text, as in every engine.
  // (Joined to the pages alone: with a condition on e in the ON clause a day's fold took
  // 6x as long, 190 ms against 31 ms for a day of 33,000 events.)
  const join = exits
    ? ` LEFT JOIN (SELECT id, value FROM text_values WHERE field = ${pageField}) t ON t.id = e.page`
    : "";
  const previousView = `max(CASE WHEN kind = 0 THEN s END) OVER (PARTITION BY website_id, visitor, day ORDER BY s
      RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)`;
  // The visitor's day is steady when every event of it has the same attributes.
  const steady = VISITOR_COLUMNS.map((column) => `min(${column}) OVER day = max(${column}) OVER day`).join(
    " AND ",
  );
  const marked = `SELECT *, kind = 0 AND coalesce(s - ${previousView}, ${VISIT_GAP_SECONDS + 1}) > ${VISIT_GAP_SECONDS} AS starts
        ${attributes ? `, ${steady} AS steady` : ""}
    FROM (SELECT e.website_id, e.visitor, ${time.day} AS day, CAST(epoch(e.ts) AS BIGINT) AS s, e.kind,
        e.page, ${exits ? "t.value" : "NULL"} AS page_text, ${time.hour} AS hour,
        ${matched === null ? "true" : `(e.kind IN (0, 1) AND ${matched})`} AS matched
        ${attributes ? VISITOR_COLUMNS.map((column) => `, e.${column}`).join("") : ""}
      FROM ${events} e${join} WHERE ${where})
    ${attributes ? "WINDOW day AS (PARTITION BY website_id, visitor, day)" : ""}`;
  const numbered = `SELECT *, sum(CAST(starts AS INTEGER)) OVER (PARTITION BY website_id, visitor, day ORDER BY s
      RANGE UNBOUNDED PRECEDING) AS visit FROM (${marked})`;
  // A mixed day's attributes are NULL (any_value of a steady day's one value).
  const held = VISITOR_COLUMNS.map(
    (column) => `, CASE WHEN bool_and(steady) THEN any_value(${column}) END AS ${column}`,
  ).join("");
  return `SELECT website_id, day, visitor, min(s) AS start, max(s) AS finish,
      count(*) FILTER (kind = 0) AS pageviews, arg_min(hour, s) AS hour,
      ${exits ? "arg_max(page, (s, page_text)) FILTER (kind = 0)" : "NULL"} AS exit_page
      ${attributes ? `, NOT bool_and(steady) AS mixed${held}, ${HOURS_MASK} AS hours` : ""}
    FROM (${numbered}) WHERE visit > 0
    GROUP BY website_id, visitor, day, visit${matched === null ? "" : " HAVING bool_or(matched)"}`;
}

/**
 * A visit statistic's counts, as statCountsSql gives them, over `visits` (rows as
 * visitRowsSql gives them, or of day_visits), whose grouped day `date` makes a DATE.
 */
function visitStatSql(stat: StatDefinition, visits: string, date: (day: string) => string): string {
  const exits = stat.dimension === "exit_page";
  const key = stat.dimension === "hour" ? "v.hour" : exits ? "v.exit_page" : "NULL";
  const counted = `SELECT v.website_id, v.day, ${key} AS k, ${VISIT_MEASURES[stat.measure]} AS count
    FROM (${visits}) v GROUP BY ALL`;
  const day = `CAST(${date("day")} AS DATE)`;
  const value =
    stat.dimension === "day"
      ? `strftime(${day}, '%Y-%m-%d')`
      : stat.dimension === "hour"
        ? "lpad(CAST(k AS VARCHAR), 2, '0')"
        : "NULL";
  const pageField = NUMBERED_TEXT.indexOf("page");
  return `SELECT website_id, CAST(${stat.id} AS UTINYINT) AS stat, ${day} AS day, CAST(${value} AS VARCHAR) AS value,
      CAST(${exits ? pageField : "NULL"} AS UTINYINT) AS field, CAST(${exits ? "k" : "NULL"} AS UINTEGER) AS number, count
    FROM (${counted})`;
}

/**
 * The condition on the events of website $1 whose visits a statement over the open days
 * `openDays` (ascending, none of them kept: a kept day's changes are the reader's) in
 * `zone` finds from events: what it holds in memory at once.
 */
export function visitEventsSql(zone: string, openDays: readonly string[]): string {
  const { start, end } = zoneRule(zone).rangeOf(openDays[0] as string, openDays.at(-1) as string);
  return openEventsSql(zone, openDayTime(timeSql(zone, start, end), openDays), openDays);
}

/**
 * The events `e` of website $1 on the open days `openDays` (ascending) in `zone`, whose
 * days `time` tells, of the visitors of `slice`: bounded by the open days' own instants, so
 * that DuckDB skips the folded days' row groups (bounded by the window's, a month's 10M
 * events were read for today's: 200 ms against a few).
 */
function openEventsSql(
  zone: string,
  time: TimeSql,
  openDays: readonly string[],
  slice?: VisitorSlice,
): string {
  const { start, end } = zoneRule(zone).rangeOf(openDays[0] as string, openDays.at(-1) as string);
  const events = windowEventsSql(start, end, slice);
  return openDays.length === 1
    ? events
    : `${events} AND ${time.day} IN (${openDays.map(time.literal).join(", ")})`;
}

/**
 * How the open days' events (openEventsSql) tell their day: as a constant when there is
 * one open day (today, mostly). Each event's local day computed took a statement over a
 * day of 275,000 events 8 ms of 12 (pageviews by page; browser 16 ms against 8).
 */
function openDayTime(time: TimeSql, openDays: readonly string[]): TimeSql {
  return openDays.length === 1 ? { ...time, day: time.literal(openDays[0] as string) } : time;
}

/** A visit statistic's counts of the visits of the events `where` selects (see visitRowsSql). */
function visitCountsSql(stat: StatDefinition, where: string, time: TimeSql, filters: string | null): string {
  return visitStatSql(stat, visitRowsSql(where, time, stat.dimension === "exit_page", filters), time.date);
}

/**
 * The visits of one website's local day as day_visits holds them (`where` the day's events,
 * `end` the day's end in seconds): each with `until`, the start of the visitor's next visit
 * that day or the day's end, so that the events of a visit are the visitor's from its start
 * to before it, with the visitor's attributes (VISITOR_COLUMNS), whether it is the
 * visitor's first of the day (one row per visitor's day, for its unique-visitor counts),
 * and the hours of day in which the visitor had a pageview that day (`day_hours`, bit n for
 * hour n, for its unique visitors by hour).
 */
function dayVisitsSql(where: string, time: TimeSql, end: number): string {
  const columns = [
    "website_id",
    "day",
    "visitor",
    "start",
    "finish",
    "until",
    "pageviews",
    "hour",
    "exit_page",
    "mixed",
    ...VISITOR_COLUMNS,
    "first_of_day",
    "day_hours",
  ];
  return `(${columns.join(", ")}) SELECT website_id, day, visitor, start, finish,
      coalesce(lead(start) OVER (PARTITION BY visitor ORDER BY start), ${end}) AS until,
      pageviews, hour, exit_page, mixed, ${VISITOR_COLUMNS.join(", ")},
      row_number() OVER (PARTITION BY visitor ORDER BY start) = 1 AS first_of_day,
      bit_or(hours) OVER (PARTITION BY visitor) AS day_hours
    FROM (${visitRowsSql(where, time, true, null, true)}) ORDER BY visitor, start`;
}

/** statCountsSql rows (`counts`) with every value as text. */
function namedSql(counts: string): string {
  return `(SELECT r.website_id, r.stat, r.day, coalesce(r.value, t.value) AS value, r.count
    FROM (${counts}) r LEFT JOIN text_values t ON t.field = r.field AND t.id = r.number)`;
}

/**
 * The fold of one website's local day `day` (YYYY-MM-DD) in `zone`, statements to run in
 * order in one transaction: the day's visits into day_visits, every statistic's counts of
 * the day (the visit statistics from those visits) into a temporary table, the values not
 * numbered yet added to stat_values, and the day's rows of daily_stats replaced by the
 * counts by value number (then pageOrderSql stores the day's events in page order). Every
 * statistic at once: DuckDB spends about 3 ms on any
 * statement, which a statement per statistic paid 23 times a day (a 2,400-event test
 * store took 12.7 s to fold 48 days that way, 10 s of the 21 s fold of 10M events).
 * `findVisits` are the statements that bring the day's visits up to date first
 * (dayVisitsStatements, or changedVisitsStatements for a day whose visits are kept).
 */
export function foldDaySql(
  websiteId: number,
  zone: string,
  day: string,
  findVisits: readonly string[],
): string[] {
  const ofDay = ofDaySql(websiteId, day);
  const where = dayEventsSql(websiteId, zone, day);
  const time = dayTime(zone, day);
  const visits = `SELECT v.* FROM day_visits v WHERE v.${ofDay}`;
  const counts = STATS.map((stat) =>
    stat.rows === "visits"
      ? visitStatSql(stat, visits, (column) => column)
      : statCountsSql(stat, where, time),
  );
  return [...findVisits, ...storedCountsStatements(websiteId, day, counts.join(" UNION ALL "), false)];
}

/**
 * Statements that store one website's counts of a day (`counts`, statCountsSql rows) in
 * daily_stats, the values not numbered yet added to stat_values first: in place of every
 * row of the day, or with `merge` added to the day's rows of the same statistic and value
 * (a kept day's changes: keptDayStatements), whose other rows stand.
 */
function storedCountsStatements(websiteId: number, day: string, counts: string, merge: boolean): string[] {
  const ofDay = ofDaySql(websiteId, day);
  const named = namedSql("SELECT * FROM folded");
  const numbered = `SELECT r.website_id, r.stat, r.day, v.id AS value_id, r.count FROM ${named} r JOIN stat_values v USING (value)`;
  const stored = merge
    ? [
        // Only the values whose counts changed: the visitors written since count each value
        // they touched today again, mostly to a change of 0, whose rows need no rewriting.
        `CREATE OR REPLACE TEMP TABLE merged AS
           WITH changes AS (
             SELECT website_id, stat, day, value_id, sum(count) AS count FROM (${numbered})
             GROUP BY ALL HAVING sum(count) <> 0
           )
           SELECT website_id, stat, day, value_id, CAST(sum(count) AS BIGINT) AS count FROM (
             SELECT * FROM changes
             UNION ALL SELECT website_id, stat, day, value_id, count FROM daily_stats
             WHERE ${ofDay} AND (stat, value_id) IN (SELECT stat, value_id FROM changes)
           ) GROUP BY ALL`,
        `DELETE FROM daily_stats WHERE ${ofDay} AND (stat, value_id) IN (SELECT stat, value_id FROM merged)`,
        `INSERT INTO daily_stats (website_id, stat, day, value_id, count)
           SELECT * FROM merged WHERE count <> 0 ORDER BY stat, value_id`,
        "DROP TABLE merged",
      ]
    : [
        `DELETE FROM daily_stats WHERE ${ofDay}`,
        `INSERT INTO daily_stats (website_id, stat, day, value_id, count) ${numbered} ORDER BY r.stat, v.id`,
      ];
  return [
    `CREATE OR REPLACE TEMP TABLE folded AS ${counts}`,
    `INSERT INTO stat_values
       SELECT CAST((SELECT coalesce(max(id), 0) FROM stat_values) + row_number() OVER (ORDER BY value) AS UINTEGER), value
       FROM (SELECT DISTINCT value FROM ${named}) WHERE value NOT IN (SELECT value FROM stat_values)`,
    ...stored,
    "DROP TABLE folded",
  ];
}

/**
 * Statements that keep the counts of one website's open day `day` in `zone` in daily_stats
 * with its visits in day_visits (`findVisits`: changedVisitsStatements or
 * dayVisitsStatements, which end the round): counted from all of the day's events and
 * visits, or, when they were kept at round `previous`, brought up to date by what the
 * events written since changed (keptChangesSql, run before the visits are). A statistic
 * then reads the day as a folded one, and adds what changed since (statQuerySql, `keptDays`).
 */
export function keptDayStatements(
  websiteId: number,
  zone: string,
  day: string,
  previous: number | null,
  findVisits: readonly string[],
): string[] {
  if (previous === null) return foldDaySql(websiteId, zone, day, findVisits);
  const counts = keptChangesSql(websiteId, zone, day, String(previous));
  return [...storedCountsStatements(websiteId, day, counts, true), ...findVisits];
}

/**
 * What the events of website `website`'s kept day `day` written since its counts were kept
 * (at round `round`, SQL: a number, or keptRoundSql) change in every statistic's counts, as
 * statCountsSql rows: a count of rows grows by the new events' (those of a later round);
 * any other count by what the visitors written since (visitor_changes) count now, less
 * what they counted at `round`: for unique visitors their events of that round and before
 * (a visitor is counted once per value and day), for visits their visits kept in
 * day_visits (a visit is one visitor's). Exact, and a few events' work: those of the
 * visitors written since, read and their visits found once for every statistic (DuckDB
 * spends about a millisecond on each join, grouping and window of a statement whatever it
 * reads: the 23 statistics' changes one by one took 71-76 ms for 25 events of 20 visitors
 * at 10M events, 25-34 ms this way). The statistics of events are counted in two groupings
 * (eventFamilySql), the visit statistics an arm each.
 */
function keptChangesSql(website: WebsiteRef, zone: string, day: string, round: string): string {
  const time = dayTime(zone, day);
  const visitArms = STATS.filter((stat) => stat.rows === "visits").map(
    (stat) => `${visitStatSql(stat, "SELECT * FROM changed_visits", time.date)}
        UNION ALL SELECT website_id, stat, day, value, field, number, -count AS count
        FROM (${visitStatSql(stat, "SELECT * FROM kept_visits", (column) => column)})`,
  );
  const counted = (measure: "rows" | "visitors") =>
    STATS.filter((stat) => stat.rows !== "visits" && stat.measure === measure);
  const arms = [
    eventFamilySql(counted("rows"), `e.round > ${round}`, "count(*)", time),
    eventFamilySql(
      counted("visitors"),
      "true",
      `count(DISTINCT e.visitor) - count(DISTINCT e.visitor) FILTER (e.round <= ${round})`,
      time,
    ),
    ...visitArms,
  ];
  // The places named once for the three statistics of places.
  return `WITH changed_events AS MATERIALIZED (SELECT e.*, p.city, p.country, p.continent
        FROM events e LEFT JOIN place_names p ON p.id = e.place WHERE ${changedEventsSql(website, zone, day)}),
      changed_visits AS MATERIALIZED (${visitRowsSql("true", time, true, null, false, "changed_events")}),
      kept_visits AS MATERIALIZED (${keptVisitsSql(website, day)})
    ${arms.join(" UNION ALL ")}`;
}

/**
 * statCountsSql's rows of several statistics of events counted alike (`count` where
 * `where`), over the few changed events of keptChangesSql (with their places' names), in
 * one grouping: each event gives a row per statistic whose rows it is (ROW_FILTERS), keyed
 * as statCountsSql keys it (statKeySql). An arm per statistic cost DuckDB 1-2.5 ms each
 * whatever it read: the whole set's statement took 50-53 ms that way, 37-38 ms this way
 * (bench/RESULTS.md, "An import's batch kept as columns").
 */
function eventFamilySql(
  stats: readonly StatDefinition[],
  where: string,
  count: string,
  time: TimeSql,
): string {
  const keys = stats.map((stat) => ({ stat, ...statKeySql(stat, time, true) }));
  // A key is a number (a numbered field's, the hour), a name (a place's), or none (the day).
  const kind = (key: (typeof keys)[number]) =>
    key.key === "NULL" ? "none" : key.field >= 0 || key.stat.dimension === "hour" ? "number" : "name";
  const entries = keys.map((key) => {
    const number = kind(key) === "number" ? key.key : "NULL";
    const name = kind(key) === "name" ? key.key : "NULL";
    return `CASE WHEN ${ROW_FILTERS[key.stat.rows as Exclude<RowFilter, "visits">]} THEN {'stat': CAST(${key.stat.id} AS UTINYINT), 'number': CAST(${number} AS UINTEGER), 'name': CAST(${name} AS VARCHAR)} END`;
  });
  const date = `CAST(${time.date("day")} AS DATE)`;
  const byStat = (part: (key: (typeof keys)[number]) => string) =>
    `CASE u.stat ${keys.map((key) => `WHEN ${key.stat.id} THEN ${part(key)}`).join(" ")} END`;
  return `SELECT website_id, u.stat AS stat, ${date} AS day,
      CAST(${byStat((key) => key.value(kind(key) === "number" ? "u.number" : "u.name", date))} AS VARCHAR) AS value,
      CAST(${byStat((key) => (key.field >= 0 ? String(key.field) : "NULL"))} AS UTINYINT) AS field,
      CAST(${byStat((key) => (key.field >= 0 ? "u.number" : "NULL"))} AS UINTEGER) AS number, count
    FROM (SELECT e.website_id, ${time.day} AS day, u, ${count} AS count
      FROM changed_events e, UNNEST([${entries.join(", ")}]) AS t(u) WHERE u IS NOT NULL AND ${where} GROUP BY ALL)`;
}

/**
 * The store's reader keeps the changes of kept days (keptChangesSql) in this table, a set
 * per website, day and `version`, each found once for the statements that read the day
 * until the next write: a dashboard's twenty statements each finding them again took 6-11
 * ms more each with a few visitors written since the day's round (bench/RESULTS.md, "What
 * changed since today's round, found once").
 */
export const KEPT_CHANGES_TABLE_SQL = `CREATE TEMP TABLE IF NOT EXISTS kept_changes (
  website_id INTEGER NOT NULL, day DATE NOT NULL, version UBIGINT NOT NULL, round UINTEGER,
  stat UTINYINT NOT NULL, value VARCHAR, count BIGINT NOT NULL)`;

/** A row of no statistic that each set holds, so that a set of no changes is there too. */
const SET_MARKER = 255;

/**
 * Statements that store website $1's kept day's changes as set `version` (greater than any
 * before), with the round they are counted from, then drop its older sets. Each statement
 * is whole, so a statement reading the newest set meanwhile finds all of one.
 */
export function keptChangesStatements(zone: string, day: string, version: number): string[] {
  const ofDay = ofDaySql("$1", day);
  const changes = namedSql(keptChangesSql("$1", zone, day, keptRoundSql(day)));
  return [
    `INSERT INTO kept_changes SELECT CAST($1 AS INTEGER), CAST('${day}' AS DATE), ${version}, ${keptRoundSql(day)}, stat, value, count
      FROM (SELECT r.stat, r.value, r.count FROM ${changes} r WHERE r.count <> 0 UNION ALL SELECT ${SET_MARKER}, NULL, 0)`,
    `DELETE FROM kept_changes WHERE ${ofDay} AND version < ${version}`,
  ];
}

/**
 * What changed in website $1's kept day `day` since its round, in `stats`, as statCountsSql
 * rows: the newest set of kept_changes, if it was counted from the round this statement
 * sees; none if an upkeep round kept the day again since (the statement then reads the day
 * as that round kept it).
 */
function keptChangesReadSql(day: string, stats: readonly StatDefinition[]): string {
  const ofDay = ofDaySql("$1", day);
  return `SELECT website_id, stat, day, value, CAST(NULL AS UTINYINT) AS field, CAST(NULL AS UINTEGER) AS number, count
    FROM kept_changes WHERE ${ofDay} AND stat IN (${stats.map((stat) => stat.id).join(", ")})
      AND round = ${keptRoundSql(day)} AND version = (SELECT max(version) FROM kept_changes WHERE ${ofDay})`;
}

/**
 * The visits of the visitors written to website `website`'s kept day `day` since it was
 * kept, as day_visits keeps them, with visitRowsSql's columns.
 */
function keptVisitsSql(website: WebsiteRef, day: string): string {
  return `SELECT v.website_id, v.day, v.visitor, v.start, v.finish, v.pageviews, v.hour, v.exit_page
    FROM day_visits v WHERE v.${ofDaySql(website, day)} AND v.visitor IN ${changedVisitorsSql(website, day)}`;
}

/**
 * The round website $1's kept day `day` is kept at, in the snapshot of the statement that
 * reads it: the changes of a kept day are counted from that round (keptChangesStatements),
 * and a statement adds them only to the daily_stats of the same round (keptChangesReadSql):
 * an upkeep round that kept the day in between would otherwise have its events counted
 * twice, in daily_stats and as written since.
 */
function keptRoundSql(day: string): string {
  return `(SELECT max(round) FROM visit_days WHERE ${ofDaySql("$1", day)})`;
}

/** The time of the events of one local day `day` in `zone` (oneDayTime). */
function dayTime(zone: string, day: string): TimeSql {
  const { start, end } = zoneRule(zone).rangeOf(day, day);
  return oneDayTime(zone, day, start, end);
}

/**
 * Statements that find every visit of one website's local day `day` in `zone` into
 * day_visits, in `parts` statements (a VisitorSlice each: a day of 3.5M events at once ran
 * out of DuckDB's memory, FOLD_PART_EVENTS in duckdb-event-store.ts), and mark the day's
 * visits kept: a fold's first statements, and the upkeep's for a day that has not ended.
 */
export function dayVisitsStatements(
  websiteId: number,
  zone: string,
  day: string,
  round: number,
  parts = 1,
): string[] {
  const { start, end } = zoneRule(zone).rangeOf(day, day);
  const where = dayEventsSql(websiteId, zone, day);
  const time = oneDayTime(zone, day, start, end);
  const ofDay = ofDaySql(websiteId, day);
  return [
    `DELETE FROM day_visits WHERE ${ofDay}`,
    ...Array.from({ length: parts }, (_, part) => {
      const visitors = parts === 1 ? where : `${where} AND ${sliceSql({ parts, part })}`;
      return `INSERT INTO day_visits ${dayVisitsSql(visitors, time, end / 1000)}`;
    }),
    ...keptStatements(websiteId, day, round),
  ];
}

/**
 * Statements that find again the visits of the visitors written to one website's kept day
 * since (visitor_changes), in place of theirs in day_visits: a visit is one visitor's, so
 * the others' stand. The upkeep's for a day that has not ended, every few seconds, and a
 * fold's first statements for a kept day.
 */
export function changedVisitsStatements(
  websiteId: number,
  zone: string,
  day: string,
  round: number,
): string[] {
  const { start, end } = zoneRule(zone).rangeOf(day, day);
  const where = changedEventsSql(websiteId, zone, day);
  return [
    `DELETE FROM day_visits WHERE ${ofDaySql(websiteId, day)} AND visitor IN ${changedVisitorsSql(websiteId, day)}`,
    `INSERT INTO day_visits ${dayVisitsSql(where, oneDayTime(zone, day, start, end), end / 1000)}`,
    ...keptStatements(websiteId, day, round),
  ];
}

/** The condition on events `e` of one website's day of the visitors written to it since its visits were kept. */
export function changedEventsSql(website: WebsiteRef, zone: string, day: string): string {
  return `${dayEventsSql(website, zone, day)} AND e.visitor IN ${changedVisitorsSql(website, day)}`;
}

/** The visitors written to one website's kept day since (visitor_changes), as a subquery. */
function changedVisitorsSql(website: WebsiteRef, day: string): string {
  return `(SELECT visitor FROM visitor_changes WHERE ${ofDaySql(website, day)})`;
}

/** A website in SQL: its id, or "$1", a query's first parameter. */
type WebsiteRef = number | "$1";

/** One website's rows of a day in a table with website_id and day. */
function ofDaySql(website: WebsiteRef, day: string): string {
  return `website_id = CAST(${website} AS INTEGER) AND day = CAST('${day}' AS DATE)`;
}

/**
 * A day's visits and counts marked kept as of `round` (its events of that round and
 * before): listed in visit_days, and no visitor changed since.
 */
function keptStatements(websiteId: number, day: string, round: number): string[] {
  const ofDay = ofDaySql(websiteId, day);
  return [
    `DELETE FROM visitor_changes WHERE ${ofDay}`,
    `DELETE FROM visit_days WHERE ${ofDay}`,
    `INSERT INTO visit_days VALUES (CAST(${websiteId} AS INTEGER), CAST('${day}' AS DATE), CAST(${round} AS UINTEGER))`,
  ];
}

/** The condition on events `e` that selects one website's local day `day` in `zone`. */
export function dayEventsSql(website: WebsiteRef, zone: string, day: string): string {
  const { start, end } = zoneRule(zone).rangeOf(day, day);
  return `e.website_id = CAST(${website} AS INTEGER) AND e.ts >= ${instantSql(start)} AND e.ts < ${instantSql(end)}`;
}

/**
 * Statements to run in one transaction after a day's fold (foldDaySql): they store one
 * website's local day's events again, in the order of their page, visitor and time. A
 * query filtered by page then finds the day's matching events together, and DuckDB skips
 * the other columns of every vector without one: at 10M events on one core, filtered by
 * page==/pricing, unique visitors took 74-78 ms against 121-209 and the slowest statistic
 * 174 against 289 (other filters gain little), and the events fit in fewer blocks. The
 * fold pays for it (bench/RESULTS.md, "Folded days in page order"). Arrival order is lost,
 * which nothing reads: exports order by time, and events of one second go together
 * everywhere.
 */
export function pageOrderSql(websiteId: number, zone: string, day: string): string[] {
  const where = dayEventsSql(websiteId, zone, day);
  return [
    `CREATE OR REPLACE TEMP TABLE day_events AS SELECT * FROM events e WHERE ${where} ORDER BY e.page, e.visitor, e.ts`,
    `DELETE FROM events e WHERE ${where}`,
    "INSERT INTO events SELECT * FROM day_events",
    "DROP TABLE day_events",
  ];
}

/**
 * Values and counts (`value`, `n`) of an unfiltered query: the folded and kept days' sums
 * from daily_stats, with what the events written to a kept day since changed (the store's
 * set of them: keptChangesReadSql), and the other open days counted from their raw events. With today
 * open at 10M events (275,000 events), a statistic took 4-15 ms that way against 10-31
 * counted from today's events and kept visits (bench/RESULTS.md, "Today kept as of a round").
 */
function foldedAndOpenSql(
  query: StatsQuery & Scope,
  openDays: readonly string[],
  bind: (value: string | number) => string,
): string {
  const { stat } = query;
  const kept = query.keptDays ?? [];
  const fromEvents = openDays.filter((day) => !kept.includes(day));
  // The parameters cast to the columns' types: otherwise DuckDB casts the column for every
  // row (UTINYINT to INTEGER) and cannot skip by min/max.
  const ofStat = `website_id = CAST($1 AS INTEGER) AND stat = CAST(${bind(stat.id)} AS UTINYINT)`;
  const open = fromEvents.map((day) => `CAST(${bind(day)} AS DATE)`);
  const folded = `SELECT value_id, sum(count) AS n FROM daily_stats
    WHERE ${ofStat} AND day BETWEEN CAST(${bind(query.from)} AS DATE) AND CAST(${bind(query.to)} AS DATE)${open.length > 0 ? ` AND day NOT IN (${open.join(", ")})` : ""}
    GROUP BY value_id`;
  // Summed by number first (cheaper than by string), then named: only the values counted.
  const summed = `(SELECT v.value, CAST(c.n AS BIGINT) AS n FROM (${folded}) c JOIN stat_values v ON v.id = c.value_id)`;
  // The kept days' changes are named already.
  const live = kept.map((day) => `SELECT value, count AS n FROM (${keptChangesReadSql(day, [stat])})`);
  if (fromEvents.length > 0) {
    const { start, end } = zoneRule(query.zone).rangeOf(fromEvents[0] as string, fromEvents.at(-1) as string);
    const time = openDayTime(timeSql(query.zone, start, end), fromEvents);
    const where = openEventsSql(query.zone, time, fromEvents, query.visitors);
    const counts =
      stat.rows === "visits"
        ? visitStatSql(stat, visitRowsSql(where, time, stat.dimension === "exit_page"), time.date)
        : statCountsSql(stat, where, time);
    live.push(`SELECT value, count AS n FROM ${namedSql(counts)}`);
  }
  if (live.length === 0) return summed;
  return `(SELECT value, CAST(sum(n) AS BIGINT) AS n FROM (
      SELECT * FROM ${summed} UNION ALL ${live.join(" UNION ALL ")}
    ) GROUP BY value)`;
}

/** pageOfCountsSql's orders as numbers, for a statement that pages several statistics. */
const PAGE_ORDERS = ["count desc", "count asc", "value asc", "value desc"] as const;

/**
 * One statement for several unfiltered queries of one window (a dashboard's lists and
 * hours) whose days are all folded or kept (`keptDays`, with their changes held:
 * foldedAndOpenSql reads the same rows for each alone): the counts of every statistic asked
 * summed at once, then paged (pagesOfCountsSql). At 10M events on one core, with today
 * kept, a dashboard's sixteen statements took about 180 ms together in the server (6-20 ms
 * each, most of it DuckDB's work on any statement), this one 62-120 ms; the view over HTTP
 * 104-133 ms against 167-216 (bench/RESULTS.md, "A dashboard's unfiltered lists in one
 * statement").
 */
export function foldedPagesSql(
  queries: readonly StatsQuery[],
  keptDays: readonly string[],
): { sql: string; params: (string | number)[] } {
  const { first, stats, params, bind } = batchOf(queries);
  const folded = `SELECT c.stat, v.value, c.n FROM (SELECT stat, value_id, sum(count) AS n FROM daily_stats
      WHERE website_id = CAST($1 AS INTEGER) AND stat IN (${stats.map((stat) => stat.id).join(", ")})
        AND day BETWEEN CAST(${bind(first.from)} AS DATE) AND CAST(${bind(first.to)} AS DATE)
      GROUP BY stat, value_id) c JOIN stat_values v ON v.id = c.value_id`;
  const live = keptDays.map(
    (day) => `SELECT stat, value, count AS n FROM (${keptChangesReadSql(day, stats)})`,
  );
  const counted = `SELECT stat, value, CAST(sum(n) AS BIGINT) AS n FROM (
      ${[folded, ...live].join(" UNION ALL ")}) GROUP BY stat, value`;
  return { sql: pagesOfCountsSql(queries, counted, bind), params };
}

/**
 * Whether statQuerySql counts a filtered query's rows straight from the window's matching
 * events (its last branch, for a count of rows): several such of one window and filters (a
 * dashboard's pages, landing pages, referrers, campaigns, events and pageviews by hour) may
 * be counted in one reading of those events (matchedRowsPagesSql).
 */
export function countsMatchedRows(query: StatsQuery): boolean {
  const { stat } = query;
  return (
    query.filters.length > 0 && stat.rows !== "visits" && stat.measure === "rows" && stat.dimension !== "day"
  );
}

/**
 * One statement for several queries of countsMatchedRows of one window and filters
 * (`numbers` as statQuerySql takes them): the window's matching events read once, each
 * statistic's key a grouping set of its own (null for an event not of its rows, a group
 * then dropped), counted as statCountsSql counts them, then paged (pagesOfCountsSql). At
 * 10M events on one core, a dashboard's six such lists (pages, landing pages, referrers,
 * campaigns, events, pageviews by hour) took 346-368 ms so against 979-1,152 one by one
 * filtered by referrer~google (961,301 matching pageviews), 138-147 against 193-257 by
 * page==/pricing; by browser!=Chrome (4.3M) 635-950 against 769-794, where grouping the
 * events six times, not reading them, is the work.
 */
export function matchedRowsPagesSql(
  queries: readonly StatsQuery[],
  numbers: readonly (number | undefined)[],
): { sql: string; params: (string | number)[] } {
  const { first, stats, params, bind } = batchOf(queries);
  const { start, end } = zoneRule(first.zone).rangeOf(first.from, first.to);
  const time = timeSql(first.zone, start, end);
  const filters = filtersSql(first.filters, numbers, bind) ?? "true";
  const keyed = stats.map((stat) => ({ stat, key: statKeySql(stat, time, false) }));
  const columns = keyed.map(
    ({ stat, key }, i) =>
      `CASE WHEN ${ROW_FILTERS[stat.rows as Exclude<RowFilter, "visits">]} THEN ${key.key} END AS k${i}`,
  );
  const grouped = `SELECT ${stats.map((_, i) => `k${i}`).join(", ")}, count(*) AS count
    FROM (SELECT ${columns.join(", ")} FROM events e WHERE e.kind IN (0, 1) AND ${windowEventsSql(start, end)} AND ${filters})
    GROUP BY GROUPING SETS (${stats.map((_, i) => `(k${i})`).join(", ")})`;
  // A row of set i has its key in k_i, and every other k null (not grouped).
  const counts = keyed.map(({ stat, key }, i) =>
    keyedCountsSql(
      stat,
      key,
      `SELECT CAST($1 AS INTEGER) AS website_id, NULL AS day, k${i} AS k, count FROM grouped WHERE k${i} IS NOT NULL`,
      "CAST(NULL AS DATE)",
    ),
  );
  const counted = `SELECT stat, value, CAST(sum(count) AS BIGINT) AS n FROM ${namedSql(counts.join(" UNION ALL "))} GROUP BY stat, value`;
  return { sql: pagesOfCountsSql(queries, counted, bind, [`grouped AS MATERIALIZED (${grouped})`]), params };
}

/**
 * The parameters of a statement about one website: $1 its id, then each value `bind`
 * binds, as the next `$n`.
 */
function websiteBinding(websiteId: number) {
  const params: (string | number)[] = [websiteId];
  const bind = (value: string | number) => {
    params.push(value);
    return `$${params.length}`;
  };
  return { params, bind };
}

/** What a statement of several queries of one window binds, and their statistics once each. */
function batchOf(queries: readonly StatsQuery[]) {
  const [first] = queries;
  if (first === undefined) throw new Error("a batch needs a query");
  const { params, bind } = websiteBinding(first.websiteId);
  const stats = [...new Map(queries.map((query) => [query.stat.id, query.stat])).values()];
  return { first, stats, params, bind };
}

/**
 * Each query's page (`i`, its position) of `counted` (a statement of `stat`, `value`, `n`:
 * the counts of every statistic asked), with its number of values (`total`), as
 * pageOfCountsSql orders and pages one statistic's counts; its values bound through
 * `bind`, after the common table expressions `before` that `counted` reads. A page past the
 * end has no rows, and its total is not read here.
 */
function pagesOfCountsSql(
  queries: readonly StatsQuery[],
  counted: string,
  bind: (value: string) => string,
  before: readonly string[] = [],
): string {
  const asked = queries.map((query, i) => {
    const order = PAGE_ORDERS.indexOf(`${query.sortBy} ${query.sort}`);
    const search = query.search === null ? "NULL" : bind(query.search);
    return `(${i}, ${query.stat.id}, ${order}, ${query.stat.omitsEmptyValue ?? false}, CAST(${search} AS VARCHAR), ${query.offset}, ${query.limit})`;
  });
  const ordered = (order: (typeof PAGE_ORDERS)[number]) => {
    const [column, direction] = order.split(" ");
    return `CASE WHEN a.page_order = ${PAGE_ORDERS.indexOf(order)} THEN c.${column === "count" ? "n" : "value"} END ${direction?.toUpperCase()}`;
  };
  const table = `asked AS (SELECT * FROM (VALUES ${asked.join(", ")}) a(i, stat, page_order, omits_empty, search, page_offset, page_limit))`;
  return `WITH ${[...before, `counted AS (${counted})`, table].join(",\n      ")}
    SELECT i, value, n, total FROM (
      SELECT a.i, a.page_offset, a.page_limit, c.value, c.n, count(*) OVER (PARTITION BY a.i) AS total,
        row_number() OVER (PARTITION BY a.i ORDER BY ${PAGE_ORDERS.map(ordered).join(", ")}, c.value ASC) AS place
      FROM asked a JOIN counted c ON c.stat = a.stat
      WHERE c.n > 0 AND (NOT a.omits_empty OR c.value <> '') AND (a.search IS NULL OR strpos(lower(c.value), a.search) > 0))
    WHERE place > page_offset AND place <= CAST(page_offset AS BIGINT) + page_limit ORDER BY i, place`;
}

/**
 * The text_values field of a filter that compares a whole value DuckDB stores as one number
 * (a page, a browser...: not a place's names, nor an event's name, which several stored
 * values share): the caller reads that number first, and the filter compares the events'
 * column with it (a value not stored yet keeps the subquery, which reads it in the query's
 * own snapshot). Numbers are never reused. Against `e.browser <> 2`, the same filter as
 * `NOT e.browser IN (SELECT id FROM text_values ...)` made DuckDB join every event to the
 * subquery: 156 ms against 58 ms to count the 10M events' non-Chrome ones on one core.
 */
export function numberedField(filter: StatsFilter): number | null {
  const field = (NUMBERED_TEXT as readonly string[]).indexOf(filter.dimension.column);
  return comparesWhole(filter.operator) && field >= 0 && filter.dimension.of !== "events" ? field : null;
}

/**
 * A filter as a condition on the events `e` (stats-filter.ts), its value bound through
 * `bind`. A whole value of numberedField is compared by its `number`, when known; other text is compared once per value in text_values (or per place in place_names), and
 * the events are kept by their numbers.
 */
function filterSql(filter: StatsFilter, bind: (value: string) => string, number?: number): string {
  const { dimension, operator } = filter;
  const holds = (text: string) =>
    comparesWhole(operator)
      ? `${text} = ${bind(filter.value)}`
      : `strpos(lower(${text}), ${bind(filter.value)}) > 0`;
  const field = (NUMBERED_TEXT as readonly string[]).indexOf(dimension.column);
  let held: string;
  if (number !== undefined) held = `e.${dimension.column} = ${number}`;
  else if (field < 0) {
    // An event whose place has no names (none, or an unknown code) has "" for each.
    const unnamed = comparesWhole(operator) && filter.value === "";
    held = `(e.place IN (SELECT id FROM place_names WHERE ${holds(`coalesce(${dimension.column}, '')`)})${
      unnamed ? " OR e.place NOT IN (SELECT id FROM place_names)" : ""
    })`;
  } else {
    const text = dimension.of === "events" ? "split_part(value, ':', 1)" : "value";
    held = `e.${dimension.column} IN (SELECT id FROM text_values WHERE field = ${field} AND ${holds(text)})`;
  }
  if (dimension.of === "entrances") held = `(e.kind = 0 AND e.is_visit AND ${held})`;
  if (dimension.of === "events") held = `(e.kind = 1 AND ${held})`;
  return isNegated(operator) ? `NOT ${held}` : held;
}

/** The query's filters as one condition on the events `e` (filterSql), or null for none. */
function filtersSql(
  filters: readonly StatsFilter[],
  numbers: readonly (number | undefined)[],
  bind: (value: string) => string,
): string | null {
  if (filters.length === 0) return null;
  return filters.map((filter, i) => filterSql(filter, bind, numbers[i])).join(" AND ");
}

/**
 * What a filtered query reading the folded visits needs of its window: the zone's time, the
 * window's events (`e`), the condition on day_visits `alias` for its folded days, and the
 * events of its open days (null without any). Of the open days, those of `kept` (their
 * visits kept in day_visits as of a round, and their changes since few: keptChanges in
 * duckdb-event-store.ts) are read as folded days for every visitor but those written since
 * (visitor_changes), whose visits are found from their events with the open days': a visit
 * is one visitor's, so the two add up. With today open at 10M events, a visit statistic
 * filtered by page==/pricing otherwise found the visits of today's 300,000 events in each
 * statement (exit pages 708 ms against 273 in-process on one core; bench/RESULTS.md,
 * "Filtered visits of a kept day"). Such a statement finds visits in at most twice the
 * events of one part (foldPartEvents): those of the days counted whole, and the changes.
 */
function foldedWindow(
  query: Pick<StatsQuery, "zone" | "from" | "to"> & Scope,
  openDays: readonly string[],
  bind: (value: string | number) => string,
  kept: readonly string[] = [],
) {
  const { start, end } = zoneRule(query.zone).rangeOf(query.from, query.to);
  const time = timeSql(query.zone, start, end);
  const events = windowEventsSql(start, end, query.visitors);
  const fromEvents = openDays.filter((day) => !kept.includes(day));
  // Bound when first used: a statement must use every value bound for it.
  let bound: { range: string; open: string[] } | null = null;
  const values = () => {
    bound ??= {
      range: `BETWEEN CAST(${bind(query.from)} AS DATE) AND CAST(${bind(query.to)} AS DATE)`,
      open: fromEvents.map((day) => `CAST(${bind(day)} AS DATE)`),
    };
    return bound;
  };
  const openEvents =
    fromEvents.length > 0 ? [openEventsSql(query.zone, time, fromEvents, query.visitors)] : [];
  for (const day of kept) {
    const range = zoneRule(query.zone).rangeOf(day, day);
    openEvents.push(
      `${windowEventsSql(range.start, range.end, query.visitors)} AND e.visitor IN ${changedVisitorsSql("$1", day)}`,
    );
  }
  return {
    time,
    events,
    folded: (alias: string) => {
      const { range, open } = values();
      const notOpen = open.length > 0 ? ` AND ${alias}.day NOT IN (${open.join(", ")})` : "";
      // Uncorrelated, a kept day at a time: NOT EXISTS on (day, visitor) made DuckDB find
      // the distinct (day, visitor) of every folded visit first.
      const changed = kept
        .map(
          (day) =>
            ` AND NOT (${alias}.day = CAST('${day}' AS DATE) AND ${alias}.visitor IN ${changedVisitorsSql("$1", day)})`,
        )
        .join("");
      return `${alias}.website_id = CAST($1 AS INTEGER) AND ${alias}.day ${range}${notOpen}${changed}`;
    },
    openEvents: openEvents.length === 0 ? null : `(${openEvents.map((where) => `(${where})`).join(" OR ")})`,
    /** The time of the open days' events (openDayTime). */
    openTime: openDayTime(time, [...fromEvents, ...kept]),
  };
}

/** Whether a filter reads only an attribute of the visitor's day that day_visits holds (VISITOR_COLUMNS). */
function visitorFilter(filter: StatsFilter): boolean {
  const { column, of } = filter.dimension;
  return of === "all" && VISITOR_DIMENSIONS.includes(column);
}

/**
 * Whether a query is filtered on the visitor's attributes alone and counts visits, or unique
 * visitors by day, by hour or by one of those attributes: statQuerySql answers it from the folded
 * visits' attributes. The caller says whether the window holds mixed visits too
 * (`mixedVisits`), which are read through their events.
 */
function readsVisitAttributes(query: StatsQuery): boolean {
  const { stat, filters } = query;
  return (stat.rows === "visits" || stat.measure === "visitors") && filtersVisitorAttributes(filters);
}

/**
 * Whether a filtered query reads the folded visits (day_visits): then it needs the window's
 * open days (counted from their events), and, filtered on the visitor's attributes alone
 * (filtersVisitorAttributes), whether the window holds mixed visits.
 */
export function readsFoldedVisits(query: StatsQuery): boolean {
  const { stat, filters } = query;
  return (
    filters.length > 0 && (stat.rows === "visits" || stat.dimension === "day" || readsVisitAttributes(query))
  );
}

/** Whether there are filters, all on the visitor's attributes (visitorFilter). */
export function filtersVisitorAttributes(filters: readonly StatsFilter[]): boolean {
  return filters.length > 0 && filters.every(visitorFilter);
}

/**
 * A filtered visit statistic's counts (`value`, `n`): the folded days' visits (day_visits)
 * with a matching event between their start and the next visit's, and the visits of the
 * open days from their raw events. On the visitor's attributes alone (readsVisitAttributes),
 * a visit of a steady day matches as its attributes do (every event of it has them: at 10M
 * events a scan of the 3.3M visits, against joining the 4.3M matching events to them, 550-600
 * ms for browser!=Chrome on one core), and only the mixed ones are read through their events.
 */
function filteredVisitsSql(
  query: StatsQuery & Scope,
  openDays: readonly string[],
  filters: string,
  bind: (value: string | number) => string,
  mixedVisits: boolean,
): string {
  const window = foldedWindow(query, openDays, bind, query.keptDays);
  const attributes = readsVisitAttributes(query);
  const folded: string[] = [];
  // The filters' conditions read `e`: here the visit's own columns of the same names.
  if (attributes)
    folded.push(`SELECT e.* FROM day_visits e WHERE ${window.folded("e")} AND NOT e.mixed AND ${filters}`);
  if (!attributes || mixedVisits) {
    const mixed = attributes ? " AND v.mixed" : "";
    const visitors = attributes
      ? ` AND e.visitor IN (SELECT v.visitor FROM day_visits v WHERE ${window.folded("v")}${mixed})`
      : "";
    const matching = `SELECT e.visitor, CAST(epoch(e.ts) AS BIGINT) AS s FROM events e
      WHERE ${window.events} AND e.kind IN (0, 1) AND ${filters}${visitors}`;
    folded.push(`SELECT v.* FROM day_visits v
      SEMI JOIN (${matching}) m ON m.visitor = v.visitor AND m.s >= v.start AND m.s < v.until
      WHERE ${window.folded("v")}${mixed}`);
  }
  const parts = [visitStatSql(query.stat, folded.join(" UNION ALL "), (day) => day)];
  if (window.openEvents !== null)
    parts.push(visitCountsSql(query.stat, window.openEvents, window.openTime, filters));
  return `(SELECT value, CAST(sum(count) AS BIGINT) AS n FROM ${namedSql(parts.join(" UNION ALL "))} GROUP BY value)`;
}

/**
 * Unique visitors by hour or by an attribute of theirs (by day: daysSql), filtered on their
 * attributes alone (readsVisitAttributes), as `value`, `n`: a steady visitor's day of the
 * folded days is its first visit, one value of each attribute and its hours, counted if they
 * match (at 10M events a scan of the 3.3M visits, against the distinct visitors of 4.3M
 * matching events); a mixed one is counted from its events, and so are the open days.
 */
function filteredVisitorsSql(
  query: StatsQuery & Scope,
  openDays: readonly string[],
  filters: string,
  bind: (value: string | number) => string,
  mixedVisits: boolean,
): string {
  const { stat } = query;
  const window = foldedWindow(query, openDays, bind, query.keptDays);
  const { time } = window;
  const parts = [steadyVisitorsSql(stat, `${window.folded("e")} AND ${filters}`)];
  if (mixedVisits) {
    const mixed = `(e.visitor, ${time.date(time.day)}) IN (
      SELECT v.visitor, v.day FROM day_visits v WHERE ${window.folded("v")} AND v.mixed AND v.first_of_day)`;
    parts.push(statCountsSql(stat, `${window.events} AND ${mixed}`, time, { filters }));
  }
  if (window.openEvents !== null)
    parts.push(statCountsSql(stat, window.openEvents, window.openTime, { filters }));
  return `(SELECT value, CAST(sum(count) AS BIGINT) AS n FROM ${namedSql(parts.join(" UNION ALL "))} GROUP BY value)`;
}

/**
 * Unique visitors by hour or by an attribute of theirs of the steady
 * visitors' days of day_visits `e` that `where` keeps, counted from each day's first visit
 * (one value of each attribute, and its hours), with the columns of statCountsSql, summed
 * over the days (a row is one visitor's day: counted by value alone, the places under
 * browser!=Chrome at 10M events in 40-50 ms against 74-97 by day and value, on one core).
 */
function steadyVisitorsSql(stat: StatDefinition, where: string): string {
  const field = (NUMBERED_TEXT as readonly string[]).indexOf(stat.dimension);
  const place = ["country", "city", "continent"].includes(stat.dimension);
  const hour = stat.dimension === "hour";
  const key = hour ? "e.day_hours" : place ? "e.place" : `e.${stat.dimension}`;
  let counted = `SELECT e.website_id, ${key} AS k, count(*) AS count FROM day_visits e
    WHERE ${where} AND e.first_of_day AND NOT e.mixed GROUP BY ALL`;
  // By hour: the visitors' days counted by their hours of day (a few thousand sets), then
  // each set's count added to each of its hours.
  if (hour)
    counted = `SELECT c.website_id, h.k, sum(c.count) AS count
      FROM (${counted}) c, (SELECT CAST(range AS UINTEGER) AS k FROM range(24)) h
      WHERE (c.k >> h.k) & 1 = 1 GROUP BY ALL`;
  // The same columns as statCountsSql: a place named here (each day's visitor has one).
  const value = hour
    ? "lpad(CAST(c.k AS VARCHAR), 2, '0')"
    : place
      ? `coalesce(p.${stat.dimension}, '')`
      : "NULL";
  return `SELECT c.website_id, CAST(${stat.id} AS UTINYINT) AS stat, CAST(NULL AS DATE) AS day, CAST(${value} AS VARCHAR) AS value,
      CAST(${field >= 0 ? field : "NULL"} AS UTINYINT) AS field, CAST(${field >= 0 ? "c.k" : "NULL"} AS UINTEGER) AS number, c.count
    FROM (${counted}) c${place ? " LEFT JOIN place_names p ON p.id = c.k" : ""}`;
}

/**
 * The SQL of a statistics query: one page of values with the number of values (`total`,
 * in every row), and the number alone, for a page past the end. `openDays` are the days of
 * the window not folded yet in the query's zone (YYYY-MM-DD, ascending): their rows in
 * daily_stats and day_visits, if any, are out of date, so they are counted from the raw
 * events instead. A filtered query counts every day from the raw events (the folds count
 * all events), except where it reads the folded days' visits (readsFoldedVisits): a
 * statistic of days counts as dayCountsSql does, so alike on its own and with others.
 * `numbers` are the stored numbers of the filters' values (numberedField), by position;
 * `mixedVisits`, whether the window's folded visits hold mixed ones (filtersVisitorAttributes);
 * `visitors`, the slice of the visitors to count (VisitorSlice), if not all; `keptDays`, the
 * kept open days (ReadOptions).
 */
export function statQuerySql(
  query: StatsQuery,
  openDays: readonly string[],
  { numbers = [], mixedVisits = true, visitors, keptDays }: ReadOptions = {},
): Record<"page" | "total", { sql: string; params: (string | number)[] }> {
  const scoped = { ...query, visitors, keptDays };
  const { params, bind } = websiteBinding(query.websiteId);
  const filters = filtersSql(query.filters, numbers, bind);
  let counted: string;
  if (filters === null) counted = foldedAndOpenSql(scoped, openDays, bind);
  else if (query.stat.dimension === "day") {
    const days = daysSql({ ...scoped, stats: [query.stat] }, openDays, filters, mixedVisits, bind);
    counted = `(SELECT day AS value, n FROM (${days}))`;
  } else if (query.stat.rows === "visits") {
    counted = filteredVisitsSql(scoped, openDays, filters, bind, mixedVisits);
  } else if (readsVisitAttributes(query)) {
    counted = filteredVisitorsSql(scoped, openDays, filters, bind, mixedVisits);
  } else {
    const { start, end } = zoneRule(query.zone).rangeOf(query.from, query.to);
    const window = windowEventsSql(start, end, visitors);
    counted = `(SELECT value, CAST(sum(count) AS BIGINT) AS n FROM ${namedSql(
      statCountsSql(query.stat, window, timeSql(query.zone, start, end), { perDay: false, filters }),
    )} GROUP BY value)`;
  }
  return pageOfCountsSql(query, counted, params, bind);
}

/**
 * Whether statQuerySql counts a query's unique visitors by an attribute of theirs (a place
 * by its names) or by hour from the matching pageviews of its window (its last branch):
 * several such of one window and filters (a dashboard's eight lists of visitors and its
 * hours, filtered on an event's attributes) may count from one table of the window's
 * matching visitors' days instead (visitorDaysTableStatements, visitorDaysStatSql).
 */
export function countsVisitorDays(query: StatsQuery): boolean {
  const { stat } = query;
  return (
    query.filters.length > 0 &&
    stat.rows === "pageviews" &&
    stat.measure === "visitors" &&
    (VISITOR_DIMENSIONS.includes(stat.dimension) || stat.dimension === "hour") &&
    !readsVisitAttributes(query)
  );
}

/**
 * The statements that make the temporary table `table` of the matching visitors' days of a
 * window (the query's website, zone, days and filters; `numbers` as statQuerySql takes
 * them): a row per distinct visitor's day (`visitor_day`: the visitor's number and the
 * local day in one key; a day since 1970 fits its 20 bits until the year 4840) and
 * attributes (VISITOR_COLUMNS) of its pageviews the filters hold for, with the hours of day
 * of those pageviews (`hours`, bit n for hour n); and `${table}_mixed`, the visitors' days
 * of more than one such row. The distinct visitors' days are found once for every list:
 * at 10M events filtered by page==/pricing on one core, each list found them again in
 * 75-235 ms; the table takes about 200 ms, and a list reads it in 5-35 ms.
 */
export function visitorDaysTableStatements(
  query: Pick<StatsQuery, "websiteId" | "zone" | "from" | "to" | "filters">,
  table: string,
  numbers: readonly (number | undefined)[],
): { sql: string; params: (string | number)[] }[] {
  const { params, bind } = websiteBinding(query.websiteId);
  const { start, end } = zoneRule(query.zone).rangeOf(query.from, query.to);
  const time = timeSql(query.zone, start, end);
  const filters = filtersSql(query.filters, numbers, bind) ?? "true";
  // The local day as a whole number (timeSql's is a DATE in UTC).
  const day = zoneRule(query.zone).isUtc ? "CAST(epoch(e.ts) AS BIGINT) // 86400" : time.day;
  return [
    {
      sql: `CREATE TEMP TABLE ${table} AS
        SELECT (CAST(e.visitor AS UBIGINT) << 20) | CAST(${day} AS UBIGINT) AS visitor_day, ${VISITOR_COLUMNS.map((column) => `e.${column}`).join(", ")},
          bit_or(CAST(1 AS UINTEGER) << CAST(${time.hour} AS INTEGER)) AS hours
        FROM events e WHERE ${ROW_FILTERS.pageviews} AND ${windowEventsSql(start, end)} AND ${filters} GROUP BY ALL`,
      params,
    },
    {
      sql: `CREATE TEMP TABLE ${table}_mixed AS
        SELECT visitor_day FROM ${table} GROUP BY visitor_day HAVING count(*) > 1`,
      params: [],
    },
  ];
}

/**
 * The SQL of a query of countsVisitorDays, as statQuerySql gives it, from the table of its
 * window's matching visitors' days (visitorDaysTableStatements): a visitor's day of one row
 * counts once under its value, the others as distinct days per value, which is what
 * statCountsSql counts (the distinct (day, visitor) pairs of the matching pageviews); by
 * hour, each visitor's day once in each hour of its rows' hours.
 */
export function visitorDaysStatSql(
  query: StatsQuery,
  table: string,
): Record<"page" | "total", { sql: string; params: (string | number)[] }> {
  const { params, bind } = websiteBinding(query.websiteId);
  const { start, end } = zoneRule(query.zone).rangeOf(query.from, query.to);
  const keyed = statKeySql(query.stat, timeSql(query.zone, start, end), false);
  const mixed = `e.visitor_day IN (SELECT visitor_day FROM ${table}_mixed)`;
  // By hour: the visitors' days counted by their hours (a few thousand sets), then each
  // set's count added to each of its hours.
  const grouped =
    query.stat.dimension === "hour"
      ? `SELECT CAST($1 AS INTEGER) AS website_id, NULL AS day, h.k, sum(c.n) AS count FROM (
          SELECT hours, count(*) AS n FROM (
            SELECT e.hours FROM ${table} e WHERE NOT ${mixed}
            UNION ALL SELECT bit_or(e.hours) FROM ${table} e WHERE ${mixed} GROUP BY e.visitor_day
          ) GROUP BY hours) c, (SELECT CAST(range AS UINTEGER) AS k FROM range(24)) h
        WHERE (c.hours >> h.k) & 1 = 1 GROUP BY h.k`
      : `SELECT CAST($1 AS INTEGER) AS website_id, NULL AS day, k, sum(n) AS count FROM (
          SELECT ${keyed.key} AS k, count(*) AS n FROM ${table} e WHERE NOT ${mixed} GROUP BY k
          UNION ALL SELECT ${keyed.key} AS k, count(DISTINCT e.visitor_day) AS n FROM ${table} e WHERE ${mixed} GROUP BY k
        ) GROUP BY k`;
  const counts = keyedCountsSql(query.stat, keyed, grouped, "CAST(NULL AS DATE)");
  const counted = `(SELECT value, CAST(sum(count) AS BIGINT) AS n FROM ${namedSql(counts)} GROUP BY value)`;
  return pageOfCountsSql(query, counted, params, bind);
}

/**
 * One page of `counted` (a subquery of `value`, `n`) as a query asks for it, and the number
 * of its values alone (statQuerySql); its values bound through `bind` into `params`.
 */
function pageOfCountsSql<P>(
  query: StatsQuery,
  counted: string,
  params: P[],
  bind: (value: string) => string,
): Record<"page" | "total", { sql: string; params: (P | number)[] }> {
  const conditions = ["c.n > 0"];
  if (query.stat.omitsEmptyValue) conditions.push("c.value <> ''");
  if (query.search) conditions.push(`strpos(lower(c.value), ${bind(query.search)}) > 0`);
  const matching = `${counted} AS c WHERE ${conditions.join(" AND ")}`;
  const order = query.sortBy === "count" ? "c.n" : "c.value";
  const direction = query.sort === "asc" ? "ASC" : "DESC";
  return {
    page: {
      sql: `SELECT c.value, c.n, count(*) OVER () AS total FROM ${matching}
        ORDER BY ${order} ${direction}, c.value ASC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      params: [...params, query.limit, query.offset],
    },
    total: { sql: `SELECT count(*) AS total FROM ${matching}`, params },
  };
}

/**
 * A page of the counts `values` and `counts` (by position) summed by value, as statQuerySql
 * pages a statistic's counts: for a statistic counted in parts (duckdb-event-store.ts,
 * readStatInParts). The two lists are bound as one parameter each, whatever their length.
 */
export function summedPageSql(
  query: StatsQuery,
  values: readonly string[],
  counts: readonly number[],
): Record<"page" | "total", { sql: string; params: DuckDBValue[]; types: DuckDBType[] }> {
  const counted = `(SELECT value, CAST(sum(n) AS BIGINT) AS n FROM (
      SELECT unnest($1) AS value, unnest($2) AS n) GROUP BY value)`;
  const params: DuckDBValue[] = [listValue([...values]), listValue([...counts])];
  // Typed: an empty list's type cannot be told from its items.
  const types = [LIST(VARCHAR), LIST(BIGINT)];
  const { page, total } = pageOfCountsSql(query, counted, params, (value) => {
    params.push(value);
    return `$${params.length}`;
  });
  return { page: { ...page, types }, total: { ...total, types } };
}

/**
 * A day's count of a statistic of days (dimension "day") from a visit's row of day_visits
 * `v` of a steady visitor's day (dayCountsSql), or null for one the folded visits do not
 * hold: every pageview of a local day is in one visit of that day, and each visitor's day
 * has one first visit.
 */
function steadyVisitMeasure(stat: StatDefinition): string | null {
  if (stat.rows === "visits") return VISIT_MEASURES[stat.measure];
  if (stat.rows !== "pageviews") return null;
  return stat.measure === "rows"
    ? "sum(v.pageviews)"
    : stat.measure === "visitors"
      ? "count(*) FILTER (v.first_of_day)"
      : null;
}

/**
 * Several statistics of days (dimension "day") over one window, as rows `stat` (its id),
 * `day` (YYYY-MM-DD), `n`: for each exactly what statQuerySql gives it, the window's events
 * read once for all of them. Unfiltered, the folded days come from daily_stats; filtered
 * on the visitor's attributes alone (and every statistic held by the visits:
 * steadyVisitMeasure), the steady visitors' folded days from one scan of day_visits. The
 * rest (open days; a filtered window's events; the mixed visitors' days) is counted from
 * the raw events: the matching pageviews and custom events are read once into `matched`,
 * which the row counts and unique visitors count and the folded visits are matched with
 * (`visits`). At 10M events, filtered by page==/pricing, the six statistics of a month took
 * 264 ms together on one core, against 830 ms one after another.
 */
export function dayCountsSql(
  query: DaysQuery,
  openDays: readonly string[],
  { numbers = [], mixedVisits = true, visitors, keptDays }: ReadOptions = {},
): { sql: string; params: (string | number)[] } {
  const { params, bind } = websiteBinding(query.websiteId);
  const filters = filtersSql(query.filters, numbers, bind);
  return { sql: daysSql({ ...query, visitors, keptDays }, openDays, filters, mixedVisits, bind), params };
}

/** What a query's SQL is given, read by the store first: see statQuerySql. */
interface ReadOptions {
  numbers?: readonly (number | undefined)[];
  mixedVisits?: boolean;
  /** Counts the visitors of this slice alone (the store adds up a day's slices). */
  visitors?: VisitorSlice | undefined;
  /**
   * The open days whose counts and visits are kept (visit_days): an unfiltered query reads
   * them as folded days, and adds what changed since (keptChangesReadSql); a filtered one
   * that reads the folded visits, as folded days but for the visitors written since, whose
   * visits it finds from their events (foldedWindow).
   */
  keptDays?: readonly string[] | undefined;
}

/** dayCountsSql's statement, `filters` as filtersSql gives them, values bound through `bind` ($1 the website). */
function daysSql(
  query: DaysQuery & Scope,
  openDays: readonly string[],
  filters: string | null,
  mixedVisits: boolean,
  bind: (value: string | number) => string,
): string {
  for (const stat of query.stats)
    if (stat.dimension !== "day") throw new Error(`${stat.name} is not a statistic of days`);
  // A kept day is read as a folded one: unfiltered, with what changed since (foldedAndOpenSql);
  // filtered, with the visitors written since counted from their events (foldedWindow).
  const kept = query.keptDays ?? [];
  const window =
    filters === null
      ? foldedWindow(
          query,
          openDays.filter((day) => !kept.includes(day)),
          bind,
        )
      : foldedWindow(query, openDays, bind, kept);
  const { time } = window;
  const steady =
    filtersVisitorAttributes(query.filters) && query.stats.every((stat) => steadyVisitMeasure(stat) !== null);
  const parts: string[] = [];
  const ctes: string[] = [];
  // Where the raw events are read, how their days are told, and the folded visits matched
  // with them (`v`), if any.
  let counted: string | null = window.openEvents;
  let countedTime = window.openTime;
  // (A function: its days are bound only if the visits are read.)
  let foldedVisits: (() => string) | null = null;
  if (filters === null) {
    parts.push(`SELECT stat, day, sum(count) AS n FROM daily_stats v
      WHERE ${window.folded("v")} AND stat IN (${query.stats.map((stat) => stat.id).join(", ")}) GROUP BY stat, day`);
    for (const day of kept)
      parts.push(`SELECT stat, day, count AS n FROM (${keptChangesReadSql(day, query.stats)})`);
  } else if (steady) {
    // One scan of the visits for every statistic: a column each, then a row each.
    const visits = `SELECT * FROM day_visits e WHERE ${window.folded("e")} AND NOT e.mixed AND ${filters}`;
    const measures = query.stats.map((stat, i) => `, ${steadyVisitMeasure(stat)} AS n${i}`).join("");
    ctes.push(`steady AS MATERIALIZED (SELECT v.day${measures} FROM (${visits}) v GROUP BY v.day)`);
    query.stats.forEach((stat, i) => {
      parts.push(`SELECT CAST(${stat.id} AS UTINYINT) AS stat, day, n${i} AS n FROM steady`);
    });
    if (mixedVisits) {
      const mixed = `(e.visitor, ${time.date(time.day)}) IN (
        SELECT v.visitor, v.day FROM day_visits v WHERE ${window.folded("v")} AND v.mixed AND v.first_of_day)`;
      counted =
        counted === null ? `${window.events} AND ${mixed}` : `${window.events} AND (${mixed} OR ${counted})`;
      countedTime = time;
      foldedVisits = () => `${window.folded("v")} AND v.mixed`;
    }
  } else {
    counted = window.events;
    countedTime = time;
    foldedVisits = () => window.folded("v");
  }
  if (counted !== null) {
    const date = `CAST(${time.date("day")} AS DATE)`;
    const visitStats = query.stats.filter((stat) => stat.rows === "visits");
    // Unfiltered, with the visits read anyway, a day's pageviews are those of its visits and
    // its unique visitors theirs (every pageview is in one visit of its visitor's day): the
    // open days' events are not read again (with today open at 10M events, the dashboard's
    // totals took 25-26.5 ms that way against 34-36).
    const byVisits = (stat: StatDefinition) =>
      filters === null &&
      visitStats.length > 0 &&
      stat.rows === "pageviews" &&
      (stat.measure === "rows" || stat.measure === "visitors");
    const ofEvents = query.stats.filter((stat) => stat.rows !== "visits" && !byVisits(stat));
    if (ofEvents.length > 0 || foldedVisits !== null)
      ctes.push(`matched AS MATERIALIZED (SELECT e.visitor, ${countedTime.day} AS day, CAST(epoch(e.ts) AS BIGINT) AS s,
        e.kind, e.is_visit FROM events e WHERE ${counted} AND e.kind IN (0, 1)${filters ? ` AND ${filters}` : ""})`);
    if (visitStats.length > 0 || query.stats.some(byVisits)) {
      const visits: string[] = [];
      if (foldedVisits !== null)
        visits.push(`SELECT v.day, v.visitor, v.start, v.finish, v.pageviews FROM day_visits v
          SEMI JOIN matched m ON m.visitor = v.visitor AND m.s >= v.start AND m.s < v.until WHERE ${foldedVisits()}`);
      if (window.openEvents !== null) {
        const open = visitRowsSql(window.openEvents, window.openTime, false, filters);
        visits.push(`SELECT ${date} AS day, visitor, start, finish, pageviews FROM (${open})`);
      }
      ctes.push(`visits AS MATERIALIZED (${visits.join(" UNION ALL ")})`);
      for (const stat of visitStats)
        parts.push(`SELECT CAST(${stat.id} AS UTINYINT) AS stat, v.day, ${VISIT_MEASURES[stat.measure]} AS n
          FROM visits v GROUP BY v.day`);
    }
    for (const stat of query.stats) {
      if (stat.rows === "visits") continue;
      if (byVisits(stat)) {
        const n = stat.measure === "visitors" ? "count(DISTINCT v.visitor)" : "sum(v.pageviews)";
        parts.push(
          `SELECT CAST(${stat.id} AS UTINYINT) AS stat, v.day, ${n} AS n FROM visits v GROUP BY v.day`,
        );
        continue;
      }
      const rows = `SELECT * FROM matched e WHERE ${ROW_FILTERS[stat.rows]}`;
      const count =
        stat.measure === "visitors"
          ? `SELECT day, count(*) AS n FROM (SELECT DISTINCT day, visitor FROM (${rows})) GROUP BY day`
          : `SELECT day, count(*) AS n FROM (${rows}) GROUP BY day`;
      parts.push(`SELECT CAST(${stat.id} AS UTINYINT) AS stat, ${date} AS day, n FROM (${count})`);
    }
  }
  if (parts.length === 0)
    return "SELECT CAST(NULL AS UTINYINT) AS stat, CAST(NULL AS VARCHAR) AS day, CAST(NULL AS BIGINT) AS n WHERE false";
  return `${ctes.length > 0 ? `WITH ${ctes.join(", ")} ` : ""}SELECT stat, strftime(day, '%Y-%m-%d') AS day,
      CAST(sum(n) AS BIGINT) AS n FROM (${parts.join(" UNION ALL ")}) GROUP BY stat, day HAVING sum(n) > 0`;
}
