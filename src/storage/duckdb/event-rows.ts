// Reading stored events back out of the embedded store as StoredEvent values: the columns
// to select, the row mapping, and the export query. Visitors are stored as dense per-day
// numbers, so a read-back visitor is the original hash where the store still keeps it
// (today and yesterday, in visitor_ids) and otherwise a value unique per website and day.

import { EVENT_KINDS, EVENT_TEXT_FIELDS, type ExportOptions, type StoredEvent } from "../ports.js";

const DAY_SECONDS = 86_400;

/**
 * The text fields the events table holds as numbers, in its column order: a field's
 * values are numbered in text_values under its index here (country, city and continent
 * are one number into places; see migrations.ts).
 */
export const NUMBERED_TEXT = EVENT_TEXT_FIELDS.filter(
  (field) => field !== "country" && field !== "city" && field !== "continent",
);

/** The select list toStoredEvent reads (from events_view `e`). */
const EVENT_COLUMNS = `e.website_id, epoch(e.ts) AS seconds, e.visitor, e.kind, e.is_visit, ${EVENT_TEXT_FIELDS.map((f) => `e.${f}`).join(", ")}`;

/**
 * The events matching `options`, in website and time order, with the visitor's hash where
 * visitor_ids still has it (a number is only ever given to one hash per website and day).
 */
export function exportQuery(options: ExportOptions): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  /** A condition on `value`, bound as the next parameter in place of `?`. */
  const bound = (condition: string, value: string | number) => {
    params.push(value);
    where.push(condition.replace("?", `$${params.length}`));
  };
  if (options.websiteId !== undefined) bound("e.website_id = ?", options.websiteId);
  if (options.from !== undefined) bound("e.ts >= CAST(? AS DATE)", options.from);
  if (options.to !== undefined) bound("e.ts < CAST(? AS DATE) + INTERVAL 1 DAY", options.to);
  return {
    sql: `SELECT ${EVENT_COLUMNS}, v.hash AS hash
      FROM events_view e LEFT JOIN visitor_ids v
        ON v.website_id = e.website_id AND v.day = CAST(e.ts AS DATE) AND v.visitor = e.visitor
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY e.website_id, e.ts, e.seq`,
    params,
  };
}

/**
 * A row selected with EVENT_COLUMNS as a StoredEvent. Without a known hash the visitor is
 * (day number << 32 | visitor number): distinct (day, visitor) pairs stay distinct, so every
 * unique-visitor statistic comes out the same wherever the events are inserted again.
 */
export function toStoredEvent(row: Record<string, unknown>): StoredEvent {
  const seconds = Number(row.seconds);
  const hash = row.hash;
  const event = {
    websiteId: Number(row.website_id),
    ts: new Date(seconds * 1000),
    visitor:
      hash === null || hash === undefined
        ? (BigInt(Math.floor(seconds / DAY_SECONDS)) << 32n) | BigInt(Number(row.visitor))
        : BigInt(hash as bigint),
    kind: EVENT_KINDS[Number(row.kind)] ?? "pageview",
    isVisit: row.is_visit === true,
  } as StoredEvent;
  for (const field of EVENT_TEXT_FIELDS) event[field] = String(row[field]);
  return event;
}
